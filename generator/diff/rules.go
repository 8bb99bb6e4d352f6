package diff

import "github.com/mcpgen/mcpgen/generator/model"

// Rule is one kind of change. Its verdicts are fixed: OldSender says whether
// the change breaks a peer on the previous revision sending to a peer on the
// current one, NewSender whether it breaks a peer on the current revision
// sending to one on the previous. Which of client and server is the sender
// comes from the direction the value travels (see the package comment).
type Rule struct {
	ID        string
	Group     string // methods, envelope, capabilities, types or definitions
	OldSender bool   // breaking when an old sender talks to a new receiver
	NewSender bool   // breaking when a new sender talks to an old receiver
	Doc       string
}

// The groups, in report order.
const (
	groupEnvelope     = "envelope"
	groupMethods      = "methods"
	groupCapabilities = "capabilities"
	groupTypes        = "types"
	groupDefinitions  = "definitions"
)

var rules = []*Rule{
	{"batching-added", groupEnvelope, false, true, "JSON-RPC batches are part of the revision now: an old receiver cannot take them"},
	{"batching-removed", groupEnvelope, true, false, "JSON-RPC batches are gone: a new receiver rejects an old sender's batch"},

	{"method-added", groupMethods, false, true, "a request (or a direction of one) is new, ungated or gated by a capability the old revision already has: an old receiver answers method-not-found"},
	{"method-added-gated", groupMethods, false, false, "a request is new and gated by a capability the old revision does not have: a new sender never sends it to an old receiver"},
	{"method-removed", groupMethods, true, false, "a request (or a direction of one) is gone: a new receiver answers an old sender method-not-found"},
	{"notification-added", groupMethods, false, false, "a notification is new: receivers ignore notifications they do not know"},
	{"notification-removed", groupMethods, false, false, "a notification is gone: receivers ignore notifications they do not know"},
	{"method-kind-changed", groupMethods, true, true, "a request became a notification or an embedded request (one that travels inside a result, never a JSON-RPC message), or the other way around"},
	{"result-alternative-added", groupMethods, false, false, "a request may be answered with another result, only when the requester asks for it (such as params.task)"},
	{"result-alternative-unasked", groupMethods, false, true, "a request may now be answered with another result whether or not the requester asked for it (such as InputRequiredResult, from the method's response definition): an old requester cannot decode it"},
	{"result-alternative-removed", groupMethods, false, false, "an alternative result that the requester had to ask for is gone"},

	{"capability-added", groupCapabilities, false, false, "a capability is new: capabilities are optional, an old peer neither declares nor reads it"},
	{"capability-removed", groupCapabilities, false, false, "a capability is gone: a new peer ignores it when an old one declares it"},

	{"field-added-optional", groupTypes, false, false, "an optional member is new: old senders leave it out, old receivers ignore it"},
	{"field-added-required", groupTypes, true, false, "a required member is new: old senders do not send it"},
	{"field-removed-optional", groupTypes, false, false, "an optional member is gone: new receivers ignore it, old receivers never needed it"},
	{"field-removed-required", groupTypes, false, true, "a required member is gone: new senders leave out what old receivers require"},
	{"field-became-required", groupTypes, true, false, "an optional member is required now: old senders may leave it out"},
	{"field-became-optional", groupTypes, false, true, "a required member is optional now: new senders may leave out what old receivers require"},
	{"field-retyped", groupTypes, true, true, "a member's type changed incompatibly (a const value included)"},
	{"field-type-widened", groupTypes, false, true, "a member accepts more than before (a union around the old type, nullable, any JSON): new senders may send what old receivers reject"},
	{"field-type-narrowed", groupTypes, true, false, "a member accepts less than before: old senders may send what new receivers reject"},
	{"field-format-changed", groupTypes, true, true, "a string member's format changed (format assertion is on)"},
	{"field-check-tightened", groupTypes, true, false, "a member's assertion accepts less than before (a smaller maxItems or maxLength, a larger minimum, a new pattern or uniqueItems): old senders may send what new receivers reject"},
	{"field-check-loosened", groupTypes, false, true, "a member's assertion accepts more than before (a larger maxItems, a smaller minimum, a pattern removed): new senders may send what old receivers reject"},
	{"field-check-changed", groupTypes, true, true, "a member's assertion accepts some values it rejected and rejects some it accepted (another pattern, a multipleOf that is not a multiple of the old)"},
	{"field-deprecated", groupTypes, false, false, "a member is deprecated now: it still works, senders should stop using it (informational)"},
	{"field-undeprecated", groupTypes, false, false, "a member is no longer deprecated (informational)"},
	{"enum-value-added", groupTypes, false, true, "an enum has a new value: new senders may send what old receivers reject"},
	{"enum-value-removed", groupTypes, true, false, "an enum value is gone: old senders may send what new receivers reject"},
	{"variant-added", groupTypes, false, true, "a union has a new variant: new senders may send what old receivers cannot decode"},
	{"variant-removed", groupTypes, true, false, "a union variant is gone: old senders may send what new receivers cannot decode"},
	{"object-closed", groupTypes, true, false, "an object rejects unknown members now (additionalProperties false)"},
	{"object-opened", groupTypes, false, true, "an object no longer rejects unknown members: new senders may send members old receivers reject"},

	{"definition-added", groupDefinitions, false, false, "a named definition is new and its shape is under no other name before (informational)"},
	{"definition-removed", groupDefinitions, false, false, "a named definition is gone and its shape is under no other name now (informational)"},
	{"definition-renamed", groupDefinitions, false, false, "a wire shape is under a new name, or an inline type became a named definition (informational)"},
	{"definition-deprecated", groupDefinitions, false, false, "a named definition is deprecated now: it still works (informational)"},
	{"definition-undeprecated", groupDefinitions, false, false, "a named definition is no longer deprecated (informational)"},
}

// Rules returns every rule, in report order.
func Rules() []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		out[i] = *r
	}
	return out
}

func rule(id string) *Rule {
	for _, r := range rules {
		if r.ID == id {
			return r
		}
	}
	panic("diff: unknown rule " + id)
}

// verdicts turns a rule's sender verdicts into the two pairings the report
// gives, for a value that travels in the directions flow.
func verdicts(r *Rule, flow model.Direction) (oldClient, oldServer bool) {
	if flow&model.ClientToServer != 0 {
		oldClient = oldClient || r.OldSender
		oldServer = oldServer || r.NewSender
	}
	if flow&model.ServerToClient != 0 {
		oldServer = oldServer || r.OldSender
		oldClient = oldClient || r.NewSender
	}
	return oldClient, oldServer
}
