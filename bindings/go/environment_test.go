package cuabi

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

const environmentChildEnv = "CUABI_GO_TEST_ENVIRONMENT_CHILD"

// Refused environment values are listed with the variable and the value. In a child process, so
// that the values are in place before the library first reads them.
func TestEnvironmentProblemsNameTheVariableAndValue(t *testing.T) {
	if os.Getenv(environmentChildEnv) != "" {
		t.Skip("the child runs TestEnvironmentProblemsChild only")
	}
	child := exec.Command(os.Args[0], "-test.run=^TestEnvironmentProblemsChild$", "-test.v")
	child.Env = append(os.Environ(), environmentChildEnv+"=1", "CUABI_NVTX=maybe", "CUABI_IMAGE_VERIFY_TIMEOUT_MS=soon",
		"CUABI_COMPILE_WORKERS=2")
	output, err := child.CombinedOutput()
	if err != nil || !strings.Contains(string(output), "--- PASS: TestEnvironmentProblemsChild") {
		t.Errorf("the child with refused values failed (%v):\n%s", err, output)
	}
}

func TestEnvironmentProblemsChild(t *testing.T) {
	if os.Getenv(environmentChildEnv) == "" {
		t.Skip("run by TestEnvironmentProblemsNameTheVariableAndValue in a child process")
	}
	problems, err := EnvironmentProblems()
	must(t, err)
	joined := strings.Join(problems, "\n")
	if len(problems) != 2 || !strings.Contains(joined, "CUABI_IMAGE_VERIFY_TIMEOUT_MS='soon' is not a whole number") ||
		!strings.Contains(joined, "CUABI_NVTX='maybe'") || strings.Contains(joined, "CUABI_COMPILE_WORKERS") {
		t.Errorf("EnvironmentProblems() = %q, want the timeout's and CUABI_NVTX's, not the usable workers'", problems)
	}
}
