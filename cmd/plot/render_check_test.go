package main

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// requireRSVG is the environment variable that makes the rendering check mandatory: with LBSWEEP_REQUIRE_RSVG=1 a
// missing rsvg-convert (Debian package librsvg2-bin) fails the test instead of skipping it.
const requireRSVG = "LBSWEEP_REQUIRE_RSVG"

// minInk is the least fraction of a rendered figure's pixels that must differ from its background: a figure drawn
// at all (axes, ticks, labels) inks 3% or more of a 900 px wide PNG; a blank or near-blank one inks almost none.
const minInk = 0.005

// rsvg renders the SVG file svg to a 900 px wide PNG with rsvg-convert and decodes it, or fails t.
func rsvg(t *testing.T, bin, svg string) image.Image {
	t.Helper()
	out := filepath.Join(t.TempDir(), "fig.png")
	if msg, err := exec.Command(bin, "-w", "900", svg, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("rsvg-convert %s: %v\n%s", svg, err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: rsvg-convert wrote no PNG: %v", svg, err)
	}
	return img
}

// ink is the fraction of img's pixels whose colour differs from its background (its most common colour: a figure
// is transparent outside gonum's plot area and white inside it, so both are counted as background), and the
// number of distinct colours.
func ink(img image.Image) (float64, int) {
	count := map[[4]uint32]int{}
	if n, ok := img.(*image.NRGBA); ok { // what rsvg-convert's PNGs decode to: read the bytes, 10 times faster
		for y := 0; y < n.Rect.Dy(); y++ {
			row := n.Pix[y*n.Stride : y*n.Stride+4*n.Rect.Dx()]
			for x := 0; x < len(row); x += 4 {
				c := row[x : x+4]
				if c[3] == 0 {
					c = []uint8{255, 255, 255, 255} // transparent reads as the white page it is shown on
				}
				count[[4]uint32{uint32(c[0]), uint32(c[1]), uint32(c[2]), uint32(c[3])}]++
			}
		}
	} else {
		r := img.Bounds()
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				cr, cg, cb, ca := img.At(x, y).RGBA()
				if ca == 0 {
					cr, cg, cb, ca = 0xffff, 0xffff, 0xffff, 0xffff
				}
				count[[4]uint32{cr >> 8, cg >> 8, cb >> 8, ca >> 8}]++
			}
		}
	}
	total, most := 0, 0
	for _, k := range count {
		total += k
		most = max(most, k)
	}
	return 1 - float64(most)/float64(total), len(count)
}

// Every committed figure (figures/*.svg) and golden figure renders with librsvg to a PNG that is not blank: at
// least minInk of its pixels differ from the background and it holds more than one colour. It runs where
// rsvg-convert is on PATH, and must run (fails without it) when LBSWEEP_REQUIRE_RSVG=1, as in CI.
func TestFiguresRender(t *testing.T) {
	bin, err := exec.LookPath("rsvg-convert")
	if err != nil {
		if os.Getenv(requireRSVG) == "1" {
			t.Fatalf("%s=1 but rsvg-convert is not on PATH (Debian: apt-get install librsvg2-bin)", requireRSVG)
		}
		t.Skip("rsvg-convert not on PATH (set " + requireRSVG + "=1 to require it)")
	}
	// The check can fail: a white page is blank.
	blank := filepath.Join(t.TempDir(), "blank.svg")
	if err := os.WriteFile(blank, []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="432" height="259"><rect width="432" height="259" fill="white"/><text x="10" y="20" font-size="4">.</text></svg>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, n := ink(rsvg(t, bin, blank)); f >= minInk && n > 1 {
		t.Fatalf("a near-blank page inks %.4f of its pixels in %d colours: the check cannot fail", f, n)
	}
	figs, err := filepath.Glob("../../figures/*.svg")
	if err != nil {
		t.Fatal(err)
	}
	goldens, err := filepath.Glob("render/testdata/*.svg")
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) == 0 {
		t.Fatal("no figures/*.svg: the check would check nothing")
	}
	least := 1.0
	for _, svg := range append(figs, goldens...) {
		f, n := ink(rsvg(t, bin, svg))
		least = min(least, f)
		if f < minInk || n < 2 {
			t.Errorf("%s renders blank or near-blank: %.4f of its pixels inked, %d colours", svg, f, n)
		}
	}
	t.Logf("%d figures rendered; the least inked has %.4f of its pixels inked", len(figs)+len(goldens), least)
}
