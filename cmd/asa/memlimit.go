package main

import (
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"
)

// memoryLimitAuto is memory_limit's default: the container's memory limit, when it has one.
const memoryLimitAuto = "auto"

// autoMemoryShare is the part of a container's memory limit asa serve sets as the Go runtime's
// soft limit: the rest covers what the runtime does not count (the binary's mapped pages, SQLite's
// page cache), as Go services in containers commonly do.
const autoMemoryShare = 0.9

// parseMemoryLimit reads a memory_limit value: "auto", "off" (or "0"), or a size in bytes with an
// optional unit (B, KB, MB, GB in powers of 1000; KiB, MiB, GiB in powers of 1024).
func parseMemoryLimit(s string) (limit int64, auto bool, err error) {
	v := strings.TrimSpace(s)
	switch strings.ToLower(v) {
	case memoryLimitAuto:
		return 0, true, nil
	case "off", "none", "0":
		return 0, false, nil
	}
	num := strings.TrimRight(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
	unit := strings.TrimSpace(v[len(num):])
	mult, ok := map[string]float64{"": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}[strings.ToLower(unit)]
	if !ok {
		return 0, false, fmt.Errorf("memory limit %q: unknown unit %q (B, KB, MB, GB, KiB, MiB, GiB)", s, unit)
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return 0, false, fmt.Errorf("memory limit %q: want auto, off or a size such as 256MiB", s)
	}
	b := n * mult
	if b < 64<<20 {
		// Below the catalogue's own heap the collector would run without pause.
		return 0, false, fmt.Errorf("memory limit %q: at least 64MiB", s)
	}
	if b >= math.MaxInt64 {
		return 0, false, fmt.Errorf("memory limit %q: too large", s)
	}
	return int64(b), false, nil
}

// cgroupMemoryLimit is the memory limit of the cgroup asa runs in, read from root (the file system
// root): cgroup v2's memory.max, else v1's memory.limit_in_bytes; ok false when there is none
// ("max", or v1's page-rounded maximum).
func cgroupMemoryLimit(root fs.FS) (limit int64, ok bool) {
	for _, name := range []string{"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := fs.ReadFile(root, name)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<60 {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// memoryLimit is the soft limit memory_limit asks for (0: none), and where it comes from.
func memoryLimit(setting string, root fs.FS) (limit int64, from string, err error) {
	limit, auto, err := parseMemoryLimit(setting)
	if err != nil || !auto {
		return limit, "memory_limit", err
	}
	if c, ok := cgroupMemoryLimit(root); ok {
		return int64(float64(c) * autoMemoryShare), fmt.Sprintf("%.0f%% of the container's %d bytes", autoMemoryShare*100, c), nil
	}
	return 0, "no container limit", nil
}
