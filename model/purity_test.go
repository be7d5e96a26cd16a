package model

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPurity parses every .go file under model/ and enforces the package doc's promise: no global random generator
// and no package-level mutable state, so that a run depends only on its parameters and seed.
//
// What it catches, syntactically (go/parser, no type checking), package by package:
//   - in non-test files, any import of math/rand or math/rand/v2 (the models draw from sim.Rand); in test files, any
//     import of math/rand and any use of math/rand/v2's global generator (a package-level function other than the
//     constructors New, NewPCG, NewChaCha8 and NewZipf): tests may use an explicitly seeded math/rand/v2 generator as
//     an input source independent of sim.Rand;
//   - a package-level var whose type, or whose initializer's type, names package sync or sync/atomic (var p
//     sync.Pool, var mu *sync.Mutex, var o = new(sync.Once), var n atomic.Int64);
//   - a package-level var written inside any function body (init included: compute a table in its initializer), by
//     assignment (v = ..., v += ..., v.f = ..., v[i] = ..., v[i].f = ..., a range loop's v = range), by ++ or --, by
//     taking its address or the address of one of its parts (&v, &v.f, &v[i]), or by the builtins delete, clear and
//     copy with it as their first argument. Identifiers are resolved by scope, so a local that shadows a package-level
//     var is not reported.
//
// What it cannot see: a method call with a pointer receiver (v.Set(x)), writes through an alias (p := v; p[0] = x,
// for a slice or map v, or a pointer taken of one of its elements elsewhere), a package-level slice or map passed to
// a function that writes it, mutable state inside a struct that holds a sync type or a pointer, reflection and
// unsafe, and anything in test files (their package-level vars and writes are not checked). Read-only package-level
// tables (parameter declarations, registries, precomputed constants such as sim's ziggurat) are allowed.
func TestPurity(t *testing.T) {
	pkgs := map[string][]string{} // directory → .go files
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			pkgs[filepath.Dir(path)] = append(pkgs[filepath.Dir(path)], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 5 {
		t.Fatalf("found %d packages under model/: is the test running in model/?", len(pkgs))
	}
	for _, dir := range slices.Sorted(func(yield func(string) bool) {
		for d := range pkgs {
			if !yield(d) {
				return
			}
		}
	}) {
		for _, problem := range purityProblems(t, pkgs[dir]) {
			t.Error(problem)
		}
	}
}

// purityProblems parses one directory's files and returns what TestPurity's doc lists, one message per finding,
// each starting with file:line.
func purityProblems(t *testing.T, paths []string) []string {
	fset := token.NewFileSet()
	var problems []string
	report := func(pos token.Pos, format string, args ...any) {
		problems = append(problems, fset.Position(pos).String()+": "+fmt.Sprintf(format, args...))
	}
	type file struct {
		ast  *ast.File
		test bool
	}
	var files []file
	vars := map[string]bool{}          // package-level vars of the non-test files, by name
	specs := map[*ast.ValueSpec]bool{} // their declarations
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		test := strings.HasSuffix(p, "_test.go")
		files = append(files, file{f, test})
		if test {
			continue
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				specs[vs] = true
				for _, name := range vs.Names {
					if name.Name != "_" {
						vars[name.Name] = true
					}
				}
			}
		}
	}
	// pkgVar reports whether id names a package-level var: declared by one of specs in its own file (resolved), or
	// unresolved in its file and declared in another file of the package.
	pkgVar := func(id *ast.Ident) bool {
		if id.Obj == nil {
			return vars[id.Name]
		}
		vs, ok := id.Obj.Decl.(*ast.ValueSpec)
		return ok && specs[vs]
	}
	for _, f := range files {
		imports := map[string]string{} // local name → path, for the rand and sync checks
		for _, im := range f.ast.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := path[strings.LastIndex(path, "/")+1:]
			if path == "math/rand/v2" {
				name = "rand"
			}
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = path
			switch {
			case path == "math/rand":
				report(im.Pos(), "imports math/rand: draw from sim.Rand")
			case path == "math/rand/v2" && !f.test:
				report(im.Pos(), "imports math/rand/v2: draw from sim.Rand")
			}
		}
		if f.test {
			ast.Inspect(f.ast, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && x.Obj == nil && imports[x.Name] == "math/rand/v2" &&
					ast.IsExported(sel.Sel.Name) && !randTypesAndConstructors[sel.Sel.Name] {
					report(sel.Pos(), "uses math/rand/v2's global generator (%s.%s): seed a generator", x.Name,
						sel.Sel.Name)
				}
				return true
			})
			continue
		}
		// namesSync reports whether the expression mentions package sync or sync/atomic (a type or a constructor).
		namesSync := func(e ast.Expr) bool {
			found := false
			ast.Inspect(e, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Obj == nil {
						if p := imports[x.Name]; p == "sync" || p == "sync/atomic" {
							found = true
						}
					}
				}
				return !found
			})
			return found
		}
		for _, decl := range f.ast.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, s := range d.Specs {
					vs := s.(*ast.ValueSpec)
					if vs.Type != nil && namesSync(vs.Type) || slices.ContainsFunc(vs.Values, namesSync) {
						report(vs.Pos(), "package-level var %s holds a sync value: own it by a value that a run "+
							"is given", vs.Names[0].Name)
					}
					for _, v := range vs.Values {
						checkWrites(v, pkgVar, report) // function literals in initializers
					}
				}
			case *ast.FuncDecl:
				if d.Body != nil {
					checkWrites(d.Body, pkgVar, report)
				}
			}
		}
	}
	return problems
}

// randTypesAndConstructors are math/rand/v2's names that do not touch its global generator.
var randTypesAndConstructors = map[string]bool{
	"New": true, "NewPCG": true, "NewChaCha8": true, "NewZipf": true,
	"Rand": true, "Source": true, "PCG": true, "ChaCha8": true, "Zipf": true,
}

// checkWrites reports the writes to package-level vars (as pkgVar tells) inside node: node is a function body, or
// an initializer whose function literals are checked.
func checkWrites(node ast.Node, pkgVar func(*ast.Ident) bool, report func(token.Pos, string, ...any)) {
	inFunc := false
	if _, ok := node.(*ast.BlockStmt); ok {
		inFunc = true
	}
	var walk func(n ast.Node, inFunc bool)
	walk = func(n ast.Node, inFunc bool) {
		ast.Inspect(n, func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok && !inFunc {
				walk(lit.Body, true)
				return false
			}
			if !inFunc {
				return true
			}
			written := func(e ast.Expr, how string) {
				if id := rootIdent(e); id != nil && pkgVar(id) {
					report(e.Pos(), "package-level var %s is %s inside a function", id.Name, how)
				}
			}
			switch s := n.(type) {
			case *ast.AssignStmt:
				if s.Tok != token.DEFINE {
					for _, l := range s.Lhs {
						written(l, "assigned")
					}
				} else {
					for _, l := range s.Lhs { // v.f, v[i] := is not valid Go; a plain name is a new local
						if _, ok := l.(*ast.Ident); !ok {
							written(l, "assigned")
						}
					}
				}
			case *ast.IncDecStmt:
				written(s.X, "incremented or decremented")
			case *ast.RangeStmt:
				if s.Tok == token.ASSIGN {
					if s.Key != nil {
						written(s.Key, "assigned by range")
					}
					if s.Value != nil {
						written(s.Value, "assigned by range")
					}
				}
			case *ast.UnaryExpr:
				if s.Op == token.AND {
					written(s.X, "address-taken")
				}
			case *ast.CallExpr:
				if fn, ok := s.Fun.(*ast.Ident); ok && fn.Obj == nil && len(s.Args) > 0 &&
					(fn.Name == "delete" || fn.Name == "clear" || fn.Name == "copy") {
					written(s.Args[0], "written by "+fn.Name)
				}
			}
			return true
		})
	}
	walk(node, inFunc)
}

// rootIdent returns the variable an lvalue writes into: v for v, v.f, v[i], v[i].f, (v), *v.p; nil for anything
// else (a call's result, a conversion).
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.SliceExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// Each rule of TestPurity on a small package: the findings a source gives, by their messages' endings.
func TestPurityCatches(t *testing.T) {
	cases := []struct {
		name, src string
		test      bool // a _test.go file
		want      []string
	}{
		{"clean", `package p
var table = []int{1, 2}
func f() int { table := []int{3}; table[0] = 4; return table[0] }
func g(x []int) { x[0] = table[1] }`, false, nil},
		{"math/rand", `package p
import "math/rand"
func f() int { return rand.Int() }`, false, []string{"imports math/rand: draw from sim.Rand"}},
		{"math/rand/v2", `package p
import "math/rand/v2"
var _ = rand.N[int]`, false, []string{"imports math/rand/v2: draw from sim.Rand"}},
		{"seeded math/rand/v2 in a test", `package p
import "math/rand/v2"
func f() float64 { return rand.New(rand.NewPCG(1, 2)).Float64() }`, true, nil},
		{"global math/rand/v2 in a test", `package p
import mr "math/rand/v2"
func f() float64 { return mr.Float64() }`, true, []string{"uses math/rand/v2's global generator (mr.Float64): seed a generator"}},
		{"sync types", `package p
import ("sync"; "sync/atomic")
var pool8 sync.Pool
var mu = new(sync.Mutex)
var n atomic.Int64`, false, []string{"var pool8 holds a sync value: own it by a value that a run is given",
			"var mu holds a sync value: own it by a value that a run is given",
			"var n holds a sync value: own it by a value that a run is given"}},
		{"writes", `package p
var a, b, c, d, e, f, g, h []int
var m map[int]int
type T struct{ x int }
var s T
func w() {
	a = nil
	b[0] = 1
	c[0]++
	_ = &d[1]
	s.x += 1
	delete(m, 1)
	clear(e)
	copy(f, a)
	for g = range 3 {}
	_ = func() { h = append(h, 1) }
}`, false, []string{"var a is assigned inside a function", "var b is assigned inside a function",
			"var c is incremented or decremented inside a function", "var d is address-taken inside a function",
			"var s is assigned inside a function", "var m is written by delete inside a function",
			"var e is written by clear inside a function", "var f is written by copy inside a function",
			"var g is assigned by range inside a function", "var h is assigned inside a function"}},
		{"a write from a function literal in an initializer", `package p
var n int
var bump = func() { n++ }`, false, []string{"var n is incremented or decremented inside a function"}},
		{"a write in a test file is not checked", `package p
var n int
func f() { n = 1 }`, true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := "p.go"
			if c.test {
				name = "p_test.go"
			}
			path := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			got := purityProblems(t, []string{path})
			if len(got) != len(c.want) {
				t.Fatalf("findings %q, want %d: %q", got, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.HasSuffix(got[i], w) {
					t.Errorf("finding %q, want one ending %q", got[i], w)
				}
			}
		})
	}
}

// A package spread over two files: a var declared in one and written in the other is found.
func TestPurityAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go")
	if err := os.WriteFile(a, []byte("package p\nvar counter int\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("package p\nfunc f() { counter++ }\nfunc g() { counter := 0; counter++ }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := purityProblems(t, []string{a, b}); len(got) != 1 || !strings.Contains(got[0], "b.go:2:") {
		t.Errorf("findings %q, want one at b.go:2", got)
	}
}
