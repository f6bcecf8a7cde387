package engine

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/vm"
)

// directConf is a configuration with two test functions: j joins its arguments, keep returns
// them (the slice itself, which no function of the engine's table does).
func directConf(t *testing.T) (*conf.Config, map[string]any) {
	env := map[string]any{"x": "a", "y": "b", "m": map[string]any{"k": nil}, directVar: newFrame()}
	c := conf.CreateNew()
	for _, o := range []expr.Option{
		expr.Env(env),
		expr.Function("j", func(args ...any) (any, error) {
			s := make([]string, len(args))
			for i, a := range args {
				s[i] = fmt.Sprint(a)
			}
			return "(" + strings.Join(s, ",") + ")", nil
		}),
		expr.Function("keep", func(args ...any) (any, error) { return args, nil }),
	} {
		o(c)
	}
	return c, env
}

func compileWith(t *testing.T, c *conf.Config, code string) (*vm.Program, direct) {
	p, err := expr.Compile(code, func(cc *conf.Config) { *cc = *c })
	if err != nil {
		t.Fatal(err)
	}
	d := compileDirect(p, c)
	if d == nil {
		t.Fatalf("%s has no direct form", code)
	}
	return p, d
}

// TestDirectFrame: nested calls, calls deeper than the frame's buffer (it grows while outer calls
// hold slots of the old one) and calls that give up half-way share one run's frame and answer
// what the VM answers, evaluation after evaluation; the buffer is left clear.
func TestDirectFrame(t *testing.T) {
	c, env := directConf(t)
	for _, code := range []string{
		`j()`,
		`j(x)`,
		`j(x, y, x)`,
		`j(j(x, y), j(y, j(x, x, j(y))), x)`,
		`j(x, j(y, j(x, j(y, j(x, j(y, j(x, j(y, "deep"))))))), y)`,
		`j(x, m.k?.z, y)`,
		`j(x, m.k == nil ? j(y) : x, j(m.k ?? "d"))`,
		`j(x, j(y), j(x, y), j(x, y, x), j(x, y, x, y))`,
	} {
		p, d := compileWith(t, c, code)
		want, err := vm.Run(p, env)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			got, ok := d(env)
			if !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: direct %#v, %v; the VM %#v", code, got, ok, want)
			}
		}
		f := env[directVar].(*frame)
		if f.top != 0 || f.env != nil {
			t.Errorf("%s: the frame is left at %d, with an environment", code, f.top)
		}
		for i, v := range f.args {
			if v != nil {
				t.Errorf("%s: slot %d still holds %#v", code, i, v)
			}
		}
	}
}

// TestDirectFrameShowsKeptArguments: a function that kept its argument slice would answer the
// direct evaluator otherwise than the VM, so that a verifying engine (TestDirectIsTheVM) reports
// it rather than letting a later call overwrite the value.
func TestDirectFrameShowsKeptArguments(t *testing.T) {
	c, env := directConf(t)
	p, d := compileWith(t, c, `keep(x, y)`)
	want, err := vm.Run(p, env)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := d(env)
	if !ok {
		t.Fatal("no direct answer")
	}
	if reflect.DeepEqual(got, want) {
		t.Errorf("keep(x, y): direct %#v, the VM %#v: a kept argument slice goes unseen", got, want)
	}
}
