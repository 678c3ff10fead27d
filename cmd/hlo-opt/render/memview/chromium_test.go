package memview_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hlo-opt/hlo-opt/cmd/hlo-opt/render/memview"
	"github.com/hlo-opt/hlo-opt/cost"
)

// chromium returns the headless browser on PATH, or skips.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (apt install chromium): the page is not loaded in a browser")
	return ""
}

// TestPageInChromium loads the TPU page in headless Chromium: its script
// runs to the end with no console error, and the chart is drawn at its
// size.
func TestPageInChromium(t *testing.T) {
	browser := chromium(t)
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	dev, err := cost.LookupDevice("tpu-v5e", nil)
	require.NoError(t, err)
	_, lr, cr := run(t, "layout/tpu_train_step.hlo", dev)
	var page bytes.Buffer
	require.NoError(t, memview.Write(&page, memview.Input{Memory: lr.Memory, Cost: cr}))
	file := filepath.Join(t.TempDir(), "page.html")
	require.NoError(t, os.WriteFile(file, page.Bytes(), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--disable-background-networking", "--no-first-run", "--user-data-dir="+t.TempDir(),
		"--enable-logging=stderr", "--v=0", "--window-size=1280,1800", "--dump-dom", "file://"+file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("console: %s", line)
		}
	}
	assert.Contains(t, string(dom), `data-ready="1"`, "the script ran to its end")
	m := regexp.MustCompile(`data-chart-size="(\d+)x(\d+)"`).FindStringSubmatch(string(dom))
	require.NotNil(t, m, "the chart's size")
	w, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	assert.GreaterOrEqual(t, w, 960, "the chart is drawn at its size (and its border)")
	assert.GreaterOrEqual(t, h, 280)
}
