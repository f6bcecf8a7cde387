package store

import "time"

// Plans (design decision 4).
const (
	PlanFree   = "free"
	PlanVibe   = "vibe"
	PlanPro    = "pro"
	PlanCustom = "custom"
)

// ValidPlan reports whether plan is one of the Plan constants.
func ValidPlan(plan string) bool {
	switch plan {
	case PlanFree, PlanVibe, PlanPro, PlanCustom:
		return true
	}
	return false
}

// DefaultCredits is a plan's monthly credit allowance per workspace. The spec gives none, so these
// are the project's (design decision 4). Custom has no default: it is whatever was agreed.
func DefaultCredits(plan string) int {
	switch plan {
	case PlanFree:
		return 5_000
	case PlanVibe:
		return 135_000
	case PlanPro:
		return 410_000
	}
	return 0
}

// BurstWindow is the window of Limits.Burst (spec 8.1: "10 for 3 s").
const BurstWindow = 3 * time.Second

// Limits are the per-key ceilings of spec 8.1.
type Limits struct {
	Concurrency int // requests in flight at once
	RPS         int // sustained requests per second
	Burst       int // requests admitted in any BurstWindow
}

// PlanLimits returns the per-key limits of a plan. Custom gets the low end of its range in the
// spec (100 in flight, 50 RPS, burst 2x sustained) until per-workspace overrides exist. An unknown
// plan gets Free's limits: failing closed costs a customer throughput, failing open costs capacity.
func PlanLimits(plan string) Limits {
	switch plan {
	case PlanVibe:
		return Limits{Concurrency: 30, RPS: 10, Burst: 40}
	case PlanPro:
		return Limits{Concurrency: 50, RPS: 25, Burst: 60}
	case PlanCustom:
		return Limits{Concurrency: 100, RPS: 50, Burst: 100}
	}
	return Limits{Concurrency: 10, RPS: 2, Burst: 10}
}
