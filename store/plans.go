package store

import (
	"fmt"
	"time"
)

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
// spec (100 in flight, 50 RPS, burst 2x sustained) unless the workspace sets its own
// (Workspace.Limits). An unknown plan gets Free's limits: failing closed costs a customer
// throughput, failing open costs capacity.
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

// The ranges of a Custom workspace's own limits (spec 8.1: concurrency "100 to 500+", sustained
// RPS "50 to 500"). The concurrency ceiling bounds what one key may hold open on a node.
const (
	MinCustomConcurrency = 100
	MaxCustomConcurrency = 5000
	MinCustomRPS         = 50
	MaxCustomRPS         = 500
)

// CustomLimits returns the limits of a Custom workspace with its own concurrency and sustained rate:
// the burst is twice the sustained rate over BurstWindow (spec 8.1).
func CustomLimits(concurrency, rps int) Limits {
	return Limits{Concurrency: concurrency, RPS: rps, Burst: 2 * rps}
}

// PlanSettings is a workspace's plan: the plan, its monthly credits (0: the plan's default; Custom
// has none and needs one), and for Custom its own concurrency and sustained rate (0: the low end of
// the range).
type PlanSettings struct {
	Plan           string
	MonthlyCredits int
	Concurrency    int
	RPS            int
}

// Check validates the settings and fills the defaults: the plan's credits, and a Custom plan's
// missing limit from the low end of its range. Limits are only for Custom.
func (p *PlanSettings) Check() error {
	if !ValidPlan(p.Plan) {
		return fmt.Errorf("%w: unknown plan %q (free, vibe, pro, custom)", ErrInvalid, p.Plan)
	}
	if p.MonthlyCredits < 0 {
		return fmt.Errorf("%w: monthly credits %d: want 0 or more", ErrInvalid, p.MonthlyCredits)
	}
	if p.MonthlyCredits == 0 {
		p.MonthlyCredits = DefaultCredits(p.Plan)
		if p.MonthlyCredits == 0 {
			return fmt.Errorf("%w: plan %q needs a monthly credit allowance", ErrInvalid, p.Plan)
		}
	}
	if p.Plan != PlanCustom {
		if p.Concurrency != 0 || p.RPS != 0 {
			return fmt.Errorf("%w: concurrency and rps are set per workspace only on the custom plan; %s has %+v", ErrInvalid, p.Plan, PlanLimits(p.Plan))
		}
		return nil
	}
	def := PlanLimits(PlanCustom)
	if p.Concurrency == 0 {
		p.Concurrency = def.Concurrency
	}
	if p.RPS == 0 {
		p.RPS = def.RPS
	}
	if p.Concurrency < MinCustomConcurrency || p.Concurrency > MaxCustomConcurrency {
		return fmt.Errorf("%w: concurrency %d: the custom plan takes %d to %d", ErrInvalid, p.Concurrency, MinCustomConcurrency, MaxCustomConcurrency)
	}
	if p.RPS < MinCustomRPS || p.RPS > MaxCustomRPS {
		return fmt.Errorf("%w: rps %d: the custom plan takes %d to %d", ErrInvalid, p.RPS, MinCustomRPS, MaxCustomRPS)
	}
	return nil
}
