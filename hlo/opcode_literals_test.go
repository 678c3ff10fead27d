package hlo_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// opcodeLiterals finds, in the non-test Go files of the module outside
// hlo/, the string literals spelling an opcode where an opcode is compared
// or looked up: a case of a switch on an opcode, an operand of == or !=
// beside an opcode, a key of a map literal keyed by opcode names, the
// Opcode field of a composite literal. Those
// must use the hlo.Op* constants and hlo.Info, so that a misspelling
// ("clz" for count-leading-zeros) cannot compile.
func opcodeLiterals(t *testing.T, root string) []string {
	t.Helper()
	known := map[string]bool{}
	for _, op := range hlo.Opcodes {
		known[string(op)] = true
	}
	known["clz"] = true // the misspelling this test was written against
	isOpcodeExpr := func(e ast.Expr) bool {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			return x.Sel.Name == "Opcode" || strings.HasSuffix(x.Sel.Name, "Opcode")
		case *ast.Ident:
			return x.Name == "op" || x.Name == "opcode" || strings.HasSuffix(x.Name, "Opcode")
		case *ast.CallExpr: // string(in.Opcode)
			if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "string" && len(x.Args) == 1 {
				if s, ok := x.Args[0].(*ast.SelectorExpr); ok {
					return s.Sel.Name == "Opcode"
				}
			}
		}
		return false
	}
	lit := func(e ast.Expr) (string, bool) {
		b, ok := e.(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(b.Value)
		return s, err == nil && known[s]
	}
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (rel == "hlo" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		report := func(e ast.Expr, s string) {
			found = append(found, fset.Position(e.Pos()).String()+": "+strconv.Quote(s))
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SwitchStmt:
				if x.Tag == nil || !isOpcodeExpr(x.Tag) {
					return true
				}
				for _, st := range x.Body.List {
					for _, e := range st.(*ast.CaseClause).List {
						if s, ok := lit(e); ok {
							report(e, s)
						}
					}
				}
			case *ast.BinaryExpr:
				if x.Op != token.EQL && x.Op != token.NEQ {
					return true
				}
				if s, ok := lit(x.Y); ok && isOpcodeExpr(x.X) {
					report(x.Y, s)
				}
				if s, ok := lit(x.X); ok && isOpcodeExpr(x.Y) {
					report(x.X, s)
				}
			case *ast.KeyValueExpr: // hlo.Instruction{Opcode: "copy"}
				if k, ok := x.Key.(*ast.Ident); ok && k.Name == "Opcode" {
					if s, ok := lit(x.Value); ok {
						report(x.Value, s)
					}
				}
			case *ast.CompositeLit:
				keys := 0
				var kvs []*ast.KeyValueExpr
				for _, e := range x.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if _, ok := lit(kv.Key); ok {
							keys++
							kvs = append(kvs, kv)
						}
					}
				}
				if keys >= 3 {
					for _, kv := range kvs {
						s, _ := lit(kv.Key)
						report(kv.Key, s)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func TestNoOpcodeLiterals(t *testing.T) {
	found := opcodeLiterals(t, "..")
	for _, f := range found {
		t.Error(f)
	}
}
