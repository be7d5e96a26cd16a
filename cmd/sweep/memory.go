package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/dustin/go-humanize"
)

// machineMemory returns the memory this process may use, in bytes: the machine's RAM (sysinfo), or the cgroup v2
// limit (/sys/fs/cgroup/memory.max) when one is set and lower; 0 when neither can be read.
func machineMemory() float64 {
	var si syscall.Sysinfo_t
	total := 0.0
	if syscall.Sysinfo(&si) == nil {
		total = float64(si.Totalram) * float64(si.Unit)
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64); err == nil && v > 0 && (total == 0 || v < total) {
			total = v // "max" (no limit) does not parse
		}
	}
	return total
}

// defaultBudgetShare is the share of machineMemory a sweep's runs may use by default (-mem): half, leaving the rest
// to the system and to other work on a shared machine.
const defaultBudgetShare = 0.5

// memoryBudget parses the -mem flag: "" is defaultBudgetShare of machineMemory (8 GB when it cannot be read); else
// a size such as "4GB", "512MiB" or "1e10" (bytes), > 0.
func memoryBudget(flag string) (float64, error) {
	if flag == "" {
		if m := machineMemory(); m > 0 {
			return defaultBudgetShare * m, nil
		}
		return 8e9, nil
	}
	if v, err := strconv.ParseFloat(flag, 64); err == nil {
		if !(v > 0) || v > 1e18 {
			return 0, fmt.Errorf("-mem %s: need a size > 0 (e.g. 4GB)", flag)
		}
		return v, nil
	}
	v, err := humanize.ParseBytes(flag)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("-mem %q: need a size > 0 such as 4GB, 512MiB or 1e10 (bytes)", flag)
	}
	return float64(v), nil
}
