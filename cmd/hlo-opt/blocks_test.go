package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBlocksKeepWritesInOrder(t *testing.T) {
	var b blocks
	var want strings.Builder
	// Writes of every kind, across block boundaries, larger than a block.
	for i := range 200 {
		s := strings.Repeat(string(rune('a'+i%26)), i*97)
		switch i % 3 {
		case 0:
			_, _ = b.Write([]byte(s))
		case 1:
			_, _ = b.WriteString(s)
		default:
			_ = b.WriteByte('#')
			s = "#"
		}
		want.WriteString(s)
	}
	_, _ = b.WriteString(strings.Repeat("x", 3*blockSize+5))
	want.WriteString(strings.Repeat("x", 3*blockSize+5))
	var got bytes.Buffer
	require.NoError(t, b.writeTo(&got))
	assert.Equal(t, want.String(), got.String())
	for _, p := range b.bs {
		assert.LessOrEqual(t, cap(p), blockSize, "blocks are never regrown")
	}
}

func TestBlocksTrimNewlines(t *testing.T) {
	var b blocks
	_, _ = b.WriteString("text\n\n")
	// Newlines that fill the rest of the block and a whole next one.
	_, _ = b.WriteString(strings.Repeat("\n", 2*blockSize))
	b.trimNewlines()
	var got bytes.Buffer
	require.NoError(t, b.writeTo(&got))
	assert.Equal(t, "text", got.String())

	var only blocks
	_, _ = only.WriteString("\n\n")
	only.trimNewlines()
	assert.True(t, only.empty())
	var none blocks
	none.trimNewlines()
	assert.True(t, none.empty())
}

func TestProgressStages(t *testing.T) {
	var w bytes.Buffer
	p := newProgress(&w, true)
	p.stage("parsing big.hlo", bigInput-1)
	assert.Empty(t, w.String(), "a small file draws nothing")
	p.stage("parsing big.hlo", 40<<20)
	assert.Equal(t, "\r\x1b[Khlo-opt: parsing big.hlo (40.00MiB)", w.String())
	p.done()
	assert.True(t, strings.HasSuffix(w.String(), "\r\x1b[K"), "the line is erased")
	w.Reset()
	p.started = time.Now().Add(-time.Second)
	p.update("indexing", 3, 40)
	assert.Equal(t, "\r\x1b[Khlo-opt: indexing 3/40 computations", w.String())

	var off bytes.Buffer
	q := newProgress(&off, false)
	q.stage("parsing big.hlo", 40<<20)
	q.update("indexing", 3, 40)
	q.done()
	assert.Empty(t, off.String(), "nothing when stderr is not a terminal")
}
