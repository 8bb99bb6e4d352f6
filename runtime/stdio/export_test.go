package stdio

// Helpers of the package's own tests that the tests in package stdio_test
// use too.
var (
	TestCtx   = testCtx
	HelperCmd = helperCmd
	ExitCode  = exitCode
)
