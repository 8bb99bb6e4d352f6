package readme_test

import (
	"os"
	"strings"
	"testing"
)

// The core module requires none of the heavy integrations: OpenTelemetry
// and Redis live in nested modules of their own (otelmcp/, redis/), so that
// a program that uses neither builds without them.
func TestCoreRequiresNoIntegration(t *testing.T) {
	b, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"go.opentelemetry.io/", "github.com/redis/"} {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, prefix) {
				t.Errorf("go.mod requires %s: keep it in its nested module", strings.TrimSpace(line))
			}
		}
	}
}
