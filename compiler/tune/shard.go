package tune

import (
	"fmt"
	"strconv"
	"strings"
)

// Environment of a Kubernetes Indexed Job's pod: the index of the pod's completion, set by
// Kubernetes, and the number of completions, which the Job's manifest passes in ShardsEnv (it is
// not in the pod's environment otherwise).
const (
	IndexEnv  = "JOB_COMPLETION_INDEX"
	ShardsEnv = "SUMAC_SHARDS"
)

// ParseShard parses a shard "I/N" (0 <= I < N).
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("shard %q: want I/N with 0 <= I < N, e.g. 0/4", s)
	}
	return i, n, nil
}

// ShardFromEnv returns the shard of a Kubernetes Indexed Job's pod: JOB_COMPLETION_INDEX of
// SUMAC_SHARDS. ok is false when JOB_COMPLETION_INDEX is not set.
func ShardFromEnv(getenv func(string) string) (i, n int, ok bool, err error) {
	idx := getenv(IndexEnv)
	if idx == "" {
		return 0, 0, false, nil
	}
	cnt := getenv(ShardsEnv)
	if cnt == "" {
		return 0, 0, false, fmt.Errorf("%s=%s is set but %s (the Job's completions) is not", IndexEnv, idx, ShardsEnv)
	}
	i, n, err = ParseShard(idx + "/" + cnt)
	if err != nil {
		return 0, 0, false, fmt.Errorf("%s=%s, %s=%s: %v", IndexEnv, idx, ShardsEnv, cnt, err)
	}
	return i, n, true, nil
}
