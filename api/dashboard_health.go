package api

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"asa/engine/errcode"
	"asa/store"
)

// The extractor health page (/dashboard/health): the firing alerts in a banner, and per endpoint a
// chart of its fields' fill rates per hour with its extraction_failed share, and a table of each
// field's recent rate against its 7-day level. Shares only: the service's traffic volumes are for
// operators (/metrics), not for every signed-in user.

func init() {
	dashboardExtensions = append(dashboardExtensions, dashboardExtension{
		setup: func(d *dashboard) {},
		routes: func(d *dashboard, g *echo.Group) {
			if d.s.health == nil {
				return
			}
			g.GET("/health", d.requireViewer(d.healthPage))
		},
	})
}

// healthDays are the periods the page offers; healthCharts bounds the charts drawn at once (the
// others are listed, one click away).
var healthDays = []int{1, 7, 30}

const healthCharts = 20

type healthPageData struct {
	Days      int
	DayRange  []int
	Endpoint  string
	Evaluated string
	Alerts    []healthAlert
	Charts    []healthEndpointView
	Others    []string
	Rules     string
}

type healthEndpointView struct {
	Endpoint  string
	Versions  string
	Alert     bool
	Chart     healthChart
	Fields    []fieldHealth
	Failed    string
	Outcomes  string
	HasRecent bool
}

// healthChart is an SVG line chart of fill rates per hour (one line per field, the alerting ones
// drawn over the rest) with the extraction_failed share as bars.
type healthChart struct {
	Width, Height int
	PlotTop       float64
	PlotBottom    float64
	PlotLeft      float64
	Lines         []healthLine
	Bars          []healthBar
	YTicks        []chartTick
	XTicks        []chartTick
	Empty         bool
}

type healthLine struct {
	Field string
	Path  string
	Alert bool
}

type healthBar struct {
	X, Y, W, H float64
	Title      string
}

func (d *dashboard) healthPage(c echo.Context, v *viewer) error {
	ctx := c.Request().Context()
	days, _ := strconv.Atoi(c.QueryParam("days"))
	if !slices.Contains(healthDays, days) {
		days = 7
	}
	m := d.s.health
	snap := m.current(ctx)
	now := d.s.now().UTC()
	to := now.Truncate(time.Hour).Add(time.Hour)
	from := to.Add(-time.Duration(days) * 24 * time.Hour)
	endpoint := c.QueryParam("endpoint")
	fills, outs, err := m.cfg.Store.ExtractorHealth(ctx, store.HealthQuery{From: from, To: to, Endpoint: endpoint, ByHour: true})
	if err != nil {
		return d.fail(c, err)
	}
	data := healthPageData{Days: days, DayRange: healthDays, Endpoint: endpoint, Alerts: snap.Alerts,
		Rules: fmt.Sprintf("An alert fires when a field's fill rate over the current and previous hour falls more than %.0f points below its level over the 7 days before "+
			"(each window with at least %d responses showing the field), or when more than %s of an endpoint's runs in that window (at least %d) end in extraction_failed.",
			m.cfg.FillDrop*100, m.cfg.MinResponses, pct(m.cfg.FailShare), m.cfg.MinRuns)}
	if !snap.At.IsZero() {
		data.Evaluated = fmtTime(snap.At)
	}
	if endpoint != "" {
		data.Alerts = nil
		for _, a := range snap.Alerts {
			if a.Endpoint == endpoint {
				data.Alerts = append(data.Alerts, a)
			}
		}
	}
	// Per endpoint, per field and hour (versions added up), and the versions seen.
	type hourFill struct{ items, filled int64 }
	perField := map[string]map[string]map[int64]*hourFill{}
	versions := map[string]map[string]bool{}
	runs := map[string]map[int64]*[2]int64{} // endpoint -> hour -> runs, extraction_failed
	volume := map[string]int64{}
	hourIdx := func(t time.Time) int64 { return int64(t.Sub(from) / time.Hour) }
	for _, r := range fills {
		if perField[r.Endpoint] == nil {
			perField[r.Endpoint] = map[string]map[int64]*hourFill{}
			versions[r.Endpoint] = map[string]bool{}
		}
		versions[r.Endpoint][r.Version] = true
		byHour := perField[r.Endpoint][r.Field]
		if byHour == nil {
			byHour = map[int64]*hourFill{}
			perField[r.Endpoint][r.Field] = byHour
		}
		i := hourIdx(r.Hour)
		if byHour[i] == nil {
			byHour[i] = &hourFill{}
		}
		byHour[i].items += r.Items
		byHour[i].filled += r.Filled
	}
	for _, r := range outs {
		if runs[r.Endpoint] == nil {
			runs[r.Endpoint] = map[int64]*[2]int64{}
		}
		i := hourIdx(r.Hour)
		if runs[r.Endpoint][i] == nil {
			runs[r.Endpoint][i] = &[2]int64{}
		}
		runs[r.Endpoint][i][0] += r.Count
		if r.Code == string(errcode.ExtractionFailed) {
			runs[r.Endpoint][i][1] += r.Count
		}
		volume[r.Endpoint] += r.Count
		if versions[r.Endpoint] == nil {
			versions[r.Endpoint] = map[string]bool{}
		}
		versions[r.Endpoint][r.Version] = true
	}
	alerting := map[string]bool{}
	for _, a := range snap.Alerts {
		alerting[a.Endpoint] = true
	}
	ids := slices.Collect(maps.Keys(versions))
	sort.Slice(ids, func(i, j int) bool {
		if alerting[ids[i]] != alerting[ids[j]] {
			return alerting[ids[i]]
		}
		if volume[ids[i]] != volume[ids[j]] {
			return volume[ids[i]] > volume[ids[j]]
		}
		return ids[i] < ids[j]
	})
	hours := days * 24
	for n, id := range ids {
		if n >= healthCharts {
			data.Others = append(data.Others, id)
			continue
		}
		ev := healthEndpointView{Endpoint: id, Alert: alerting[id], Versions: strings.Join(slices.Sorted(maps.Keys(versions[id])), ", ")}
		fieldAlert := map[string]bool{}
		if e := snap.Endpoints[id]; e != nil {
			ev.Fields = e.Fields
			for _, f := range e.Fields {
				fieldAlert[f.Field] = f.Alert
				ev.HasRecent = ev.HasRecent || f.HasRecent
			}
			if e.Runs > 0 {
				ev.Failed = pct(e.Failed)
				var parts []string
				for _, code := range slices.Sorted(maps.Keys(e.Outcomes)) {
					name := code
					if code == outcomeOK {
						name = "ok"
					}
					parts = append(parts, fmt.Sprintf("%s %s", name, pct(float64(e.Outcomes[code])/float64(e.Runs))))
				}
				ev.Outcomes = strings.Join(parts, ", ")
			}
		}
		rates := map[string]map[int64]float64{}
		for f, byHour := range perField[id] {
			rates[f] = map[int64]float64{}
			for i, hf := range byHour {
				if hf.items > 0 {
					rates[f][i] = float64(hf.filled) / float64(hf.items)
				}
			}
		}
		ev.Chart = drawHealthChart(hours, from, rates, fieldAlert, runs[id])
		data.Charts = append(data.Charts, ev)
	}
	return d.render(c, http.StatusOK, "health", &view{Title: "Extractor health", Nav: "health", Viewer: v, Data: &data})
}

// drawHealthChart lays out a 720x220 viewBox: x is the hour, y the share (0 to 100%).
func drawHealthChart(hours int, from time.Time, rates map[string]map[int64]float64, alert map[string]bool, runs map[int64]*[2]int64) healthChart {
	ch := healthChart{Width: 720, Height: 220, PlotTop: 10, PlotBottom: 190, PlotLeft: 44}
	plotH := ch.PlotBottom - ch.PlotTop
	slot := (float64(ch.Width) - ch.PlotLeft - 6) / float64(hours)
	x := func(i int64) float64 { return ch.PlotLeft + (float64(i)+0.5)*slot }
	y := func(r float64) float64 { return ch.PlotBottom - r*plotH }
	ch.Empty = len(rates) == 0 && len(runs) == 0
	for _, f := range slices.Sorted(maps.Keys(rates)) {
		byHour := rates[f]
		var b strings.Builder
		prev := int64(-2)
		for _, i := range slices.Sorted(maps.Keys(byHour)) {
			if i < 0 || i >= int64(hours) {
				continue
			}
			// A step per hour, so that a lone hour shows; a gap (hours without responses) is
			// left undrawn rather than drawn as a fall.
			cmd := "L"
			if i != prev+1 {
				cmd = "M"
			}
			fmt.Fprintf(&b, "%s%.1f %.1f L%.1f %.1f ", cmd, x(i)-slot/2, y(byHour[i]), x(i)+slot/2, y(byHour[i]))
			prev = i
		}
		ch.Lines = append(ch.Lines, healthLine{Field: f, Path: strings.TrimSpace(b.String()), Alert: alert[f]})
	}
	// The alerting fields are drawn last, over the others.
	sort.SliceStable(ch.Lines, func(i, j int) bool { return !ch.Lines[i].Alert && ch.Lines[j].Alert })
	for _, i := range slices.Sorted(maps.Keys(runs)) {
		r := runs[i]
		if i < 0 || i >= int64(hours) || r[1] == 0 {
			continue
		}
		share := float64(r[1]) / float64(r[0])
		h := share * plotH
		ch.Bars = append(ch.Bars, healthBar{X: x(i) - slot*0.35, W: slot * 0.7, Y: ch.PlotBottom - h, H: h,
			Title: fmt.Sprintf("%s: %s of runs ended in extraction_failed", from.Add(time.Duration(i)*time.Hour).Format("2006-01-02 15:00"), pct(share))})
	}
	for _, f := range []float64{0, 0.5, 1} {
		ch.YTicks = append(ch.YTicks, chartTick{Pos: y(f), Label: pct(f)})
	}
	// Ticks on whole hours: every 4 hours over a day, else at midnight every day or every few days.
	every, layout := 4, "15:00"
	if hours > 24 {
		every, layout = 24*max(1, hours/24/7), "01-02"
	}
	for i := range hours {
		t := from.Add(time.Duration(i) * time.Hour)
		if int(t.Unix()/3600)%every == 0 {
			ch.XTicks = append(ch.XTicks, chartTick{Pos: x(int64(i)) - slot/2, Label: t.Format(layout)})
		}
	}
	return ch
}
