package httpguard

import (
	"fmt"
	"log/slog"

	"github.com/mcpgen/mcpgen/runtime/session"
)

// CheckRevisions checks the revisions a server of transport (such as
// "streamhttp") is configured with: those of h's own options merged with
// opts (session.MergeOptions). When they are wrong it returns the error
// the server then answers every request with, prefixed with transport, and
// says so once at ERROR where the operator sees it at start-up: on logger,
// or on slog.Default() when logger is nil (a discarded log would hide it).
func CheckRevisions(transport string, h session.Handler, opts session.Options, logger *slog.Logger) error {
	err := session.CheckRevisions(session.MergeOptions(h, opts).Revisions)
	if err == nil {
		return nil
	}
	err = fmt.Errorf("%s: %w", transport, err)
	if logger == nil {
		logger = slog.Default()
	}
	logger.Error("mcp " + transport + ": every request is refused: " + err.Error())
	return err
}
