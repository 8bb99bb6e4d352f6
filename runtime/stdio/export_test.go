package stdio

// The helpers of this package's tests that its external tests
// (serve_test.go) use.
var (
	TestCtx   = testCtx
	HelperCmd = helperCmd
	ExitCode  = exitCode
)
