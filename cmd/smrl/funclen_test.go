package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines bounds a non-test function, from its func keyword to its
// closing brace (issue 32: no god functions, and none added later).
const maxFuncLines = 120

// longFunctions are the non-test functions over maxFuncLines that
// ARCHITECTURE.md lists as known breaks (package directory and name, a
// method as Type.Name). expr's interpreter is allowed; the others are to
// be split, and their entries removed with them.
var longFunctions = map[string]bool{
	"internal/expr Program.evalD": true,
}

// TestNoLongFunctions fails naming every non-test function of the module
// over maxFuncLines lines that is not a listed known break.
func TestNoLongFunctions(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	n := 0
	long := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "examples") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			n++
			lines := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			key := filepath.ToSlash(rel) + " " + funcName(fd)
			if lines > maxFuncLines {
				long[key] = true
			}
			if lines > maxFuncLines && !longFunctions[key] {
				t.Errorf("%s: %s is %d lines, over %d: split it into steps with names that say what they do",
					fset.Position(fd.Pos()), funcName(fd), lines, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no functions found")
	}
	for key := range longFunctions {
		if !long[key] {
			t.Errorf("%s is no longer over %d lines: remove it from longFunctions and from ARCHITECTURE.md's known breaks", key, maxFuncLines)
		}
	}
}

// funcName is fd's name, Type.Name for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
