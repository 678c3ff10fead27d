package hlo_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hlo-opt/hlo-opt/hlo"
)

// opcodeLiterals finds, in the non-test Go files of the module outside
// hlo/, the string literals spelling an opcode where an opcode is compared
// or looked up: a case of a switch on an opcode, an operand of == or !=
// beside an opcode, a key of a map literal keyed by opcode names, the
// Opcode field of a composite literal, a string of opcode names cut by
// strings.Fields. Those
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
		for _, e := range opcodeSites(f, lit, isOpcodeExpr) {
			s, _ := lit(e)
			found = append(found, fset.Position(e.Pos()).String()+": "+strconv.Quote(s))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// opcodeSites returns the opcode literals of f in the places
// opcodeLiterals looks at.
func opcodeSites(f *ast.File, lit func(ast.Expr) (string, bool), isOpcodeExpr func(ast.Expr) bool) []ast.Expr {
	var out []ast.Expr
	add := func(e ast.Expr) {
		if _, ok := lit(e); ok {
			out = append(out, e)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SwitchStmt:
			if x.Tag != nil && isOpcodeExpr(x.Tag) {
				for _, st := range x.Body.List {
					for _, e := range st.(*ast.CaseClause).List {
						add(e)
					}
				}
			}
		case *ast.BinaryExpr:
			if x.Op == token.EQL || x.Op == token.NEQ {
				if isOpcodeExpr(x.X) {
					add(x.Y)
				}
				if isOpcodeExpr(x.Y) {
					add(x.X)
				}
			}
		case *ast.CallExpr: // strings.Fields("abs add and ...")
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Fields" && len(x.Args) == 1 {
				if b, ok := x.Args[0].(*ast.BasicLit); ok && b.Kind == token.STRING {
					if s, err := strconv.Unquote(b.Value); err == nil && slices.ContainsFunc(strings.Fields(s), func(w string) bool {
						_, ok := lit(&ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(w)})
						return ok
					}) {
						out = append(out, b)
					}
				}
			}
		case *ast.KeyValueExpr: // hlo.Instruction{Opcode: "copy"}
			if k, ok := x.Key.(*ast.Ident); ok && k.Name == "Opcode" {
				add(x.Value)
			}
		case *ast.CompositeLit:
			var keys []ast.Expr
			for _, e := range x.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if _, ok := lit(kv.Key); ok {
						keys = append(keys, kv.Key)
					}
				}
			}
			if len(keys) >= 3 { // a table keyed by opcode names
				out = append(out, keys...)
			}
		}
		return true
	})
	return out
}

func TestNoOpcodeLiterals(t *testing.T) {
	found := opcodeLiterals(t, "..")
	for _, f := range found {
		t.Error(f)
	}
}
