package tasks_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// A task's life in a store: the server creates the record, the running
// handler asks for input and waits, tasks/update answers, the handler
// completes, and a late tasks/cancel changes nothing.
func ExampleMemoryStore() {
	ctx := context.Background()
	store := tasks.NewMemoryStore(tasks.MemoryOptions{})

	// tools/call turned into a task: answer CreateTaskResult only after this.
	rec, err := store.Create(ctx, &tasks.Record{
		ID:           tasks.NewID(),
		Principal:    "alice",
		Method:       "tools/call",
		Status:       tasks.StatusWorking,
		TTL:          time.Hour,
		PollInterval: time.Second,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	id := rec.ID

	// The handler asks for a confirmation: the task is input_required.
	asked, err := store.Update(ctx, id, "alice", func(r *tasks.Record) error {
		r.Status = tasks.StatusInputRequired
		r.Outstanding = map[string]jsontext.Value{
			"confirm": jsontext.Value(`{"method":"elicitation/create","params":{"message":"Delete a.txt?"}}`),
		}
		r.Issued = append(r.Issued, "confirm")
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	// tasks/update, on whichever instance it lands, records the answer.
	go func() {
		_, err := store.Update(ctx, id, "alice", func(r *tasks.Record) error {
			if _, ok := r.Outstanding["confirm"]; !ok {
				return nil // not outstanding: ignored
			}
			delete(r.Outstanding, "confirm")
			if r.Answers == nil {
				r.Answers = map[string]jsontext.Value{}
			}
			r.Answers["confirm"] = jsontext.Value(`{"action":"accept","content":{"confirm":true}}`)
			return nil
		})
		if err != nil {
			fmt.Println(err)
		}
	}()

	// The handler waits until the answer is there.
	seen := asked
	for seen.Answers["confirm"] == nil {
		if seen, err = store.Wait(ctx, id, "alice", seen.Version); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println("answer:", string(seen.Answers["confirm"]))

	// The handler returns: the task completes with the tool's result.
	done, err := store.Update(ctx, id, "alice", func(r *tasks.Record) error {
		r.Status = tasks.StatusCompleted
		r.Result = jsontext.Value(`{"content":[{"type":"text","text":"deleted"}]}`)
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("status:", done.Status, "version:", done.Version)

	// A cancel after the outcome is refused: terminal records are final.
	_, err = store.Update(ctx, id, "alice", func(r *tasks.Record) error {
		r.CancelRequested = true
		return nil
	})
	fmt.Println("late cancel refused:", errors.Is(err, tasks.ErrTerminal))

	// Another principal cannot tell the task exists.
	_, err = store.Get(ctx, id, "mallory")
	fmt.Println("mallory:", errors.Is(err, tasks.ErrNotFound))

	// Output:
	// answer: {"action":"accept","content":{"confirm":true}}
	// status: completed version: 4
	// late cancel refused: true
	// mallory: true
}

func ExampleNewID() {
	id := tasks.NewID()
	fmt.Println(len(id), "characters of base64url")
	// Output: 22 characters of base64url
}

// A store keeps a record as one JSON document.
func ExampleRecord_MarshalJSON() {
	created := time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)
	r := tasks.Record{
		ID:        "AAECAwQFBgcICQoLDA0ODw",
		Principal: "alice",
		Status:    tasks.StatusCompleted,
		CreatedAt: created,
		UpdatedAt: created.Add(2 * time.Second),
		TTL:       time.Hour,
		Version:   3,
		Result:    jsontext.Value(`{"content":[]}`),
	}
	b, err := r.MarshalJSON()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(b))

	var back tasks.Record
	if err := back.UnmarshalJSON(b); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back.Status, back.TTL, back.Version)
	// Output:
	// {"id":"AAECAwQFBgcICQoLDA0ODw","principal":"alice","status":"completed","createdAt":"2026-07-28T10:00:00Z","updatedAt":"2026-07-28T10:00:02Z","ttlMs":3600000,"version":3,"result":{"content":[]}}
	// completed 1h0m0s 3
}
