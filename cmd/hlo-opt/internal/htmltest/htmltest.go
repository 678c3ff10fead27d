// Package htmltest reads back the pages hlo-opt writes, for their tests:
// it parses a page with golang.org/x/net/html and finds its elements, their
// attributes, text and table cells. It is test support, imported by tests
// only.
package htmltest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// Parse parses page, failing the test when it does not parse.
func Parse(tb testing.TB, page []byte) *html.Node {
	tb.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	require.NoError(tb, err)
	return doc
}

// FindAll returns the elements under n (n itself included) that f
// accepts, in document order.
func FindAll(n *html.Node, f func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	if n == nil {
		return nil
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && f(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// ByID returns the element with the id, nil when there is none.
func ByID(doc *html.Node, id string) *html.Node {
	ns := FindAll(doc, func(n *html.Node) bool { return Attr(n, "id") == id })
	if len(ns) == 0 {
		return nil
	}
	return ns[0]
}

// Attr returns n's attribute key, "" when it has none.
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// HasClass reports whether n's class list holds c.
func HasClass(n *html.Node, c string) bool {
	return strings.Contains(" "+Attr(n, "class")+" ", " "+c+" ")
}

// Text is the text under n, trimmed.
func Text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

// OwnText is the text of n's own text children, not of its elements,
// trimmed.
func OwnText(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return strings.TrimSpace(b.String())
}

// Rows returns the cells of each row of table's body.
func Rows(table *html.Node) [][]*html.Node { return rowsIn(table, "tbody") }

// FootRows returns the cells of each row of table's foot.
func FootRows(table *html.Node) [][]*html.Node { return rowsIn(table, "tfoot") }

func rowsIn(table *html.Node, part string) [][]*html.Node {
	var out [][]*html.Node
	for _, tr := range FindAll(table, func(n *html.Node) bool { return n.Data == "tr" && n.Parent != nil && n.Parent.Data == part }) {
		out = append(out, FindAll(tr, func(n *html.Node) bool { return n.Data == "td" }))
	}
	return out
}
