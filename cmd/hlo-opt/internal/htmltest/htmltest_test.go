package htmltest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/internal/htmltest"
)

func TestReadBack(t *testing.T) {
	doc := htmltest.Parse(t, []byte(`<p id="x" class="a b">one <b>two</b></p>
<table id="t"><tbody><tr><td>1</td><td data-v="2">2</td></tr></tbody><tfoot><tr><td>sum</td></tr></tfoot></table>`))
	p := htmltest.ByID(doc, "x")
	assert.Equal(t, "one two", htmltest.Text(p))
	assert.Equal(t, "one", htmltest.OwnText(p))
	assert.True(t, htmltest.HasClass(p, "b"))
	assert.False(t, htmltest.HasClass(p, "c"))
	assert.Nil(t, htmltest.ByID(doc, "nope"))
	rows := htmltest.Rows(htmltest.ByID(doc, "t"))
	assert.Len(t, rows, 1)
	assert.Equal(t, "2", htmltest.Attr(rows[0][1], "data-v"))
	assert.Equal(t, "sum", htmltest.Text(htmltest.FootRows(htmltest.ByID(doc, "t"))[0][0]))
}
