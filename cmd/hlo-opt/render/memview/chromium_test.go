package memview_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	"github.com/hlo-opt/hlo-opt/layoutassign"
	"github.com/hlo-opt/hlo-opt/passes"
)

// chromium returns the headless browser on PATH, or skips.
func chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (apt install chromium): the page is not loaded in a browser")
	return ""
}

// loadPage writes page to a file, loads it in headless Chromium and
// returns the DOM once its scripts ran, failing on any console message.
func loadPage(t *testing.T, browser string, page []byte) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "page.html")
	require.NoError(t, os.WriteFile(file, page, 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0", "--window-size=1280,1800", "--dump-dom", "file://"+file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("console: %s", line)
		}
	}
	return string(dom)
}

// TestPageInChromium loads the TPU page in headless Chromium: its script
// runs to the end with no console error, and the chart is drawn at its
// size.
func TestPageInChromium(t *testing.T) {
	browser := chromium(t)
	dev, err := cost.LookupDevice("tpu-v5e", nil)
	require.NoError(t, err)
	res, lr, cr := run(t, "layout/tpu_train_step.hlo", dev)
	var page bytes.Buffer
	require.NoError(t, memview.Write(&page, memview.Input{Module: res.Module, Memory: lr.Memory, Cost: cr}))
	dom := loadPage(t, browser, page.Bytes())
	assert.Contains(t, dom, `data-ready="1"`, "the script ran to its end")
	m := regexp.MustCompile(`data-chart-size="(\d+)x(\d+)"`).FindStringSubmatch(dom)
	require.NotNil(t, m, "the chart's size")
	w, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	assert.GreaterOrEqual(t, w, 960, "the chart is drawn at its size (and its border)")
	assert.GreaterOrEqual(t, h, 280)
}

// driver is appended to the page: it drives the HBM chart's step picker
// as a user does (arrow keys and Home/End on the focused chart, a click
// on the chart, the peak button) and records after each what the picker
// shows: the step, the status line, the rows and the folded rows.
const driver = `<script>
(function () {
  function snap() {
    var st = document.getElementById("status-hbm"), t = document.getElementById("live-hbm"), rows = [], foot = [];
    t.tBodies[0].querySelectorAll("tr").forEach(function (tr) {
      rows.push([tr.cells[6].firstChild.textContent, tr.cells[1].getAttribute("data-v"), tr.cells[1].textContent, tr.cells[9].textContent]);
    });
    t.tFoot.querySelectorAll("tr").forEach(function (tr) {
      foot.push([tr.cells[6].textContent, tr.cells[1].getAttribute("data-v"), tr.cells[1].textContent]);
    });
    return {step: +st.getAttribute("data-step"), status: st.textContent, rows: rows, foot: foot};
  }
  function key(k) { box.dispatchEvent(new KeyboardEvent("keydown", {key: k, bubbles: true})); }
  var box = document.getElementById("chart-hbm"), svg = box.querySelector("svg"), sel = svg.querySelector(".selected");
  var out = {snaps: []};
  out.snaps.push(snap());
  key("ArrowRight"); out.snaps.push(snap());
  key("ArrowLeft"); key("ArrowLeft"); out.snaps.push(snap());
  key("Home"); out.snaps.push(snap());
  var x0 = +sel.getAttribute("x1");
  key("End"); out.snaps.push(snap());
  var x1 = +sel.getAttribute("x1"), n = out.snaps[4].step;
  // A click on the chart where step CLICK is drawn.
  var r = svg.getBoundingClientRect(), x = x0 + (x1 - x0) * CLICK / n;
  svg.dispatchEvent(new MouseEvent("click", {clientX: r.left + x * r.width / svg.viewBox.baseVal.width, clientY: r.top + r.height / 2, bubbles: true}));
  out.snaps.push(snap());
  document.querySelector('.picker[data-space="hbm"] button[data-act="peak"]').click();
  out.snaps.push(snap());
  out.formatted = FORMAT.map(fmtBytes);
  document.body.setAttribute("data-driven", JSON.stringify(out));
})();
</script>
</body>`

// TestStepPickerInChromium drives the step picker of real TPU pages in
// headless Chromium and checks each step it shows against the memory
// report: the buffers live there (LiveAt), the largest MaxLiveRows of 4 KiB
// and up in LiveAt's order with their sizes printed as Go prints them, the
// rest folded, all adding up to the timeline's bytes at the step.
func TestStepPickerInChromium(t *testing.T) {
	browser := chromium(t)
	for _, file := range []string{
		"groundtruth/transformer_fwd/tpu-v5e/large/after_optimizations.txt",
		"layout/tpu_train_step.hlo",
	} {
		t.Run(file, func(t *testing.T) {
			dev, err := cost.LookupDevice("tpu-v5e", nil)
			require.NoError(t, err)
			res, lr, cr := run(t, file, dev)
			var page bytes.Buffer
			require.NoError(t, memview.Write(&page, memview.Input{File: file, Module: res.Module, Memory: lr.Memory, Cost: cr}))
			hbm := lr.Memory.Spaces[0]
			n := len(hbm.Timeline)
			click := n / 3
			drive := strings.ReplaceAll(driver, "CLICK", strconv.Itoa(click))
			js, err := json.Marshal(formatCases)
			require.NoError(t, err)
			drive = strings.ReplaceAll(drive, "FORMAT", string(js))
			dom := loadPage(t, browser, bytes.Replace(page.Bytes(), []byte("</body>"), []byte(drive), 1))
			m := regexp.MustCompile(`data-driven="([^"]*)"`).FindStringSubmatch(dom)
			require.NotNil(t, m, "the driver ran")
			var got struct {
				Snaps     []snapshot `json:"snaps"`
				Formatted []string   `json:"formatted"`
			}
			require.NoError(t, json.Unmarshal([]byte(htmlUnescape(m[1])), &got))
			require.Len(t, got.Formatted, len(formatCases))
			for i, n := range formatCases {
				assert.Equal(t, passes.FormatBytes(n), got.Formatted[i], "the script prints %d bytes as Go does", n)
			}
			peak := hbm.PeakStep
			wantSteps := []int{peak, min(peak+1, n-1), max(min(peak+1, n-1)-2, 0), 0, n - 1, click, peak}
			require.Len(t, got.Snaps, len(wantSteps))
			for i, s := range got.Snaps {
				assert.Equal(t, wantSteps[i], s.Step, "snapshot %d", i)
				checkSnapshot(t, hbm, s)
			}
		})
	}
}

// formatCases are byte counts whose printing rounds a half (1.25KiB,
// 1.75KiB, 2.125MiB and 2.375MiB to two decimals) or carries.
var formatCases = []int64{0, 1, 1023, 1024, 1280, 1792, 1331, 2228224, 2490368, 1048575, 1048576, 1073741823, 5 << 40, -1536}

// snapshot is what the picker showed after one action.
type snapshot struct {
	Step   int        `json:"step"`
	Status string     `json:"status"`
	Rows   [][]string `json:"rows"`
	Foot   [][]string `json:"foot"`
}

// checkSnapshot checks a step's status line and table against the
// space's LiveAt list and timeline.
func checkSnapshot(t *testing.T, sp layoutassign.SpaceReport, s snapshot) {
	t.Helper()
	p := sp.Timeline[s.Step]
	want := fmt.Sprintf("Step %d of %d: %s — %s live (unpadded %s)", s.Step, len(sp.Timeline), p.At, passes.FormatBytes(p.Bytes), passes.FormatBytes(p.Unpadded))
	if s.Step == sp.PeakStep {
		want += ", the peak"
	}
	assert.Equal(t, want, s.Status)
	var big []layoutassign.Buffer
	var smallBytes int64
	small := 0
	for _, b := range sp.LiveAt(s.Step) {
		if b.Cost.Bytes >= memview.FoldBelow {
			big = append(big, b)
		} else {
			small++
			smallBytes += b.Cost.Bytes
		}
	}
	require.Len(t, s.Rows, min(len(big), memview.MaxLiveRows), "step %d", s.Step)
	var sum int64
	for i, r := range s.Rows {
		b := big[i]
		assert.Equal(t, label(b.Instruction.Name, b.Index), r[0], "step %d row %d", s.Step, i)
		assert.Equal(t, strconv.FormatInt(b.Cost.Bytes, 10), r[1])
		assert.Equal(t, passes.FormatBytes(b.Cost.Bytes), r[2], "the script prints bytes as Go does")
		if b.Kind == layoutassign.KindTemp {
			assert.Equal(t, fmt.Sprintf("%d–%d", b.Start, b.End), r[3])
			assert.True(t, b.Start <= s.Step && s.Step <= b.End)
		} else {
			assert.Equal(t, "all", r[3])
		}
		sum += b.Cost.Bytes
	}
	for _, f := range s.Foot {
		v, err := strconv.ParseInt(f[1], 10, 64)
		require.NoError(t, err)
		assert.Equal(t, passes.FormatBytes(v), f[2])
		sum += v
	}
	if small > 0 {
		require.NotEmpty(t, s.Foot)
		last := s.Foot[len(s.Foot)-1]
		assert.Equal(t, strconv.FormatInt(smallBytes, 10), last[1], "step %d: the buffers under 4 KiB", s.Step)
		assert.True(t, strings.HasPrefix(last[0], strconv.Itoa(small)+" buffer"), last[0])
	}
	assert.Equal(t, p.Bytes, sum, "step %d: the rows add up to the timeline", s.Step)
}

// htmlUnescape undoes the escaping of an attribute value in the dumped
// DOM.
func htmlUnescape(s string) string {
	return strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">", "&#39;", "'").Replace(s)
}
