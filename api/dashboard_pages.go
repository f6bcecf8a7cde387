package api

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"asa/store"
)

// overviewData is the workspace page: plan, this month's credits, limits, keys.
type overviewData struct {
	Plan        string
	Month       string
	Allowance   int
	Used        int
	Left        int
	UsedPercent int
	Limits      store.Limits
	ActiveKeys  int
	MaxKeys     int
	Usage       usageData
}

func (d *dashboard) overview(c echo.Context, v *viewer) error {
	ctx := c.Request().Context()
	now := d.s.now().UTC()
	used, err := d.store.CreditsUsed(ctx, v.Workspace.ID, now)
	if err != nil {
		return d.fail(c, err)
	}
	keys, err := d.store.Keys(ctx, v.Workspace.ID)
	if err != nil {
		return d.fail(c, err)
	}
	active := 0
	for _, k := range keys {
		if k.State == store.KeyActive {
			active++
		}
	}
	allowance := v.Workspace.MonthlyCredits
	data := overviewData{
		Plan: v.Workspace.Plan, Month: now.Format("January 2006"),
		Allowance: allowance, Used: used, Left: max(allowance-used, 0),
		Limits: v.Workspace.Limits(), ActiveKeys: active, MaxKeys: store.MaxActiveKeys,
	}
	if allowance > 0 {
		data.UsedPercent = min(100, used*100/allowance)
	}
	data.Usage, err = d.usageFor(c, v, "", 30)
	if err != nil {
		return d.fail(c, err)
	}
	return d.render(c, http.StatusOK, "overview", &view{Title: "Workspace", Nav: "overview", Viewer: v, Data: data})
}

// keyRow is one key in the list.
type keyRow struct {
	Short    string
	Mode     string
	State    string
	Created  string
	LastUsed string
	Revoked  string
	// Resent marks the key a form sent again had created.
	Resent bool
}

type keysData struct {
	Keys       []keyRow
	ActiveKeys int
	MaxKeys    int
	// NewKey is the full key, shown once, right after it was generated.
	NewKey     string
	NewKeyMode string
	Welcome    bool
	BaseURL    string
	// FormID is the generate form's single-use id (keyFormID).
	FormID string
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func (d *dashboard) keysData(c echo.Context, v *viewer) (keysData, error) {
	keys, err := d.store.Keys(c.Request().Context(), v.Workspace.ID)
	if err != nil {
		return keysData{}, err
	}
	out := keysData{MaxKeys: store.MaxActiveKeys, BaseURL: strings.TrimSuffix(d.s.cfg.PublicURL, "/")}
	// Newest first: the key just made is at the top.
	for i := len(keys) - 1; i >= 0; i-- {
		k := keys[i]
		mode := "live"
		if k.Test {
			mode = "sandbox"
		}
		if k.State == store.KeyActive {
			out.ActiveKeys++
		}
		row := keyRow{Short: k.ShortPrefix, Mode: mode, State: k.State, Created: fmtTime(k.CreatedAt), LastUsed: fmtTime(k.LastUsedAt)}
		if !k.RevokedAt.IsZero() {
			row.Revoked = fmtTime(k.RevokedAt)
		}
		out.Keys = append(out.Keys, row)
	}
	return out, nil
}

// keysPage is the keys page's data, with a fresh generate form.
func (d *dashboard) keysPage(c echo.Context, v *viewer) (keysData, error) {
	data, err := d.keysData(c, v)
	data.FormID = keyFormID(v.token, d.s.now())
	return data, err
}

func (d *dashboard) keys(c echo.Context, v *viewer) error {
	data, err := d.keysPage(c, v)
	if err != nil {
		return d.fail(c, err)
	}
	data.Welcome = c.QueryParam("welcome") != ""
	page := &view{Title: "API keys", Nav: "keys", Viewer: v, Data: &data}
	if s := c.QueryParam("revoked"); s != "" {
		page.Notice = "Key " + s + " is revoked: its next request gets 401 revoked."
	}
	return d.render(c, http.StatusOK, "keys", page)
}

// resentNotice answers a generate form sent again: a browser reload re-sends the POST.
const resentNotice = "This form was already submitted: the key it created is listed below and was shown only once; generate another if you need one."

// createKey generates a key and shows it once, in the answer to the POST: the key is never put in
// a URL, a redirect or the store. Each form creates at most one key: its single-use id is spent in
// the transaction that creates the key, and a form sent again (a reload, a double click, a retry
// after a lost answer) creates nothing and is answered 200 with the keys page and a notice.
func (d *dashboard) createKey(c echo.Context, v *viewer) error {
	ctx := c.Request().Context()
	page := &view{Title: "API keys", Nav: "keys", Viewer: v}
	formID := c.FormValue(keyFormField)
	issued, ok := parseKeyFormID(v.token, formID)
	if !ok || d.s.now().Sub(issued) > d.cfg.SessionTTL {
		// No id (a page from before the id, a hand-made form), another session's, or too old for its
		// spent record to still be kept: nothing tells whether it was sent before.
		return d.forbidden(c, v)
	}
	var test bool
	switch mode := c.FormValue("mode"); mode {
	case "live":
	case "sandbox":
		test = true
	default:
		// A typo or a forged form must not create a live (billed) key by default.
		data, err := d.keysPage(c, v)
		if err != nil {
			return d.fail(c, err)
		}
		page.Data, page.Error = &data, fmt.Sprintf("Unknown key kind %q: choose live or sandbox. No key was created.", mode)
		return d.render(c, http.StatusBadRequest, "keys", page)
	}
	form := store.KeyForm{Hash: tokenHash(formID), Expires: issued.Add(d.cfg.SessionTTL + keyFormGrace)}
	key, rec, err := d.store.CreateKeyOnce(ctx, v.Workspace.ID, test, form)
	status := http.StatusOK
	switch {
	case errors.Is(err, store.ErrFormUsed):
		// 200, not 409: nothing went wrong (the form did its work the first time), and a browser
		// reports a 4xx answer to a page load as an error in its console.
		page.Notice = resentNotice
		d.s.log.InfoContext(ctx, "dashboard key form sent again", "request_id", requestID(c), "workspace_id", v.Workspace.ID, "key", rec.ShortPrefix)
	case errors.Is(err, store.ErrKeyLimit):
		page.Error = fmt.Sprintf("A workspace holds at most %d active keys. Revoke one first.", store.MaxActiveKeys)
		status = http.StatusConflict
	case err != nil:
		return d.fail(c, err)
	default:
		d.s.log.InfoContext(ctx, "dashboard key created", "request_id", requestID(c), "workspace_id", v.Workspace.ID, "key", rec.ShortPrefix)
	}
	data, derr := d.keysPage(c, v)
	if derr != nil {
		return d.fail(c, derr)
	}
	switch {
	case err == nil:
		data.NewKey = key.String()
		data.NewKeyMode = map[bool]string{true: "sandbox", false: "live"}[test]
	case errors.Is(err, store.ErrFormUsed):
		for i := range data.Keys {
			data.Keys[i].Resent = rec.ShortPrefix != "" && data.Keys[i].Short == rec.ShortPrefix
		}
	}
	page.Data = &data
	return d.render(c, status, "keys", page)
}

func (d *dashboard) revokeKey(c echo.Context, v *viewer) error {
	short := c.Param("short")
	err := d.store.RevokeKey(c.Request().Context(), v.Workspace.ID, short)
	if errors.Is(err, store.ErrNotFound) {
		// Another workspace's key is as unknown as a key that never existed.
		return d.notFound(c)
	}
	if err != nil {
		return d.fail(c, err)
	}
	d.s.log.InfoContext(c.Request().Context(), "dashboard key revoked", "request_id", requestID(c), "workspace_id", v.Workspace.ID, "key", short)
	d.s.keyRevoked(c.Request().Context(), short)
	return c.Redirect(http.StatusSeeOther, "/dashboard/keys?revoked="+short)
}

// ---- usage ----------------------------------------------------------------------------------

// endpointTotal is one line of the per-endpoint table.
type endpointTotal struct {
	Endpoint string
	Requests int
	Errors   int
	Credits  int
	// AddOns is the part of Credits that paid for rendering and screenshots.
	AddOns int
}

// chart is a server-rendered SVG bar chart of requests per day, errors stacked on top.
type chart struct {
	Width, Height int
	PlotTop       float64
	PlotBottom    float64
	PlotLeft      float64
	Bars          []chartBar
	YTicks        []chartTick
	XTicks        []chartTick
	Empty         bool
}

type chartBar struct {
	X, W         float64
	OKY, OKH     float64
	ErrY, ErrH   float64
	Title        string
	Day          string
	Requests     int
	Errors       int
	Credits      int
	HasRequests  bool
	LabelX       float64
	LabelVisible bool
}

type chartTick struct {
	Pos   float64
	Label string
}

type usageData struct {
	Keys     []keyRow
	Key      string
	Days     int
	DayFrom  string
	DayTo    string
	Chart    chart
	Totals   []endpointTotal
	Total    endpointTotal
	DayRows  []chartBar
	DayRange []int
}

var usageRanges = []int{7, 30, 90}

func (d *dashboard) usage(c echo.Context, v *viewer) error {
	days, _ := strconv.Atoi(c.QueryParam("days"))
	if days != 7 && days != 90 {
		days = 30
	}
	data, err := d.usageFor(c, v, c.QueryParam("key"), days)
	page := &view{Title: "Usage", Nav: "usage", Viewer: v, Data: &data}
	if errors.Is(err, store.ErrNotFound) {
		// A short prefix of another workspace is unknown here.
		page.Error = "No key " + c.QueryParam("key") + " in this workspace."
		data, err = d.usageFor(c, v, "", days)
		page.Data = &data
		if err != nil {
			return d.fail(c, err)
		}
		return d.render(c, http.StatusNotFound, "usage", page)
	}
	if err != nil {
		return d.fail(c, err)
	}
	return d.render(c, http.StatusOK, "usage", page)
}

// usageFor builds the usage of the last days UTC days (today included), for one key or all.
func (d *dashboard) usageFor(c echo.Context, v *viewer, key string, days int) (usageData, error) {
	ctx := c.Request().Context()
	today := d.s.now().UTC().Truncate(24 * time.Hour)
	from := today.AddDate(0, 0, -(days - 1))
	out := usageData{Key: key, Days: days, DayFrom: from.Format("2006-01-02"), DayTo: today.Format("2006-01-02"), DayRange: usageRanges}
	kd, err := d.keysData(c, v)
	if err != nil {
		return out, err
	}
	out.Keys = kd.Keys
	rows, err := d.store.Usage(ctx, store.UsageQuery{WorkspaceID: v.Workspace.ID, KeyShort: key, Since: from})
	if err != nil {
		return out, err
	}
	perDay := make([]chartBar, days)
	byEndpoint := map[string]*endpointTotal{}
	for _, r := range rows {
		i := int(r.Day.Sub(from) / (24 * time.Hour))
		if i < 0 || i >= days {
			continue
		}
		perDay[i].Requests += r.Requests
		perDay[i].Errors += r.Errors
		perDay[i].Credits += r.Credits
		t := byEndpoint[r.Endpoint]
		if t == nil {
			t = &endpointTotal{Endpoint: r.Endpoint}
			byEndpoint[r.Endpoint] = t
		}
		t.Requests += r.Requests
		t.Errors += r.Errors
		t.Credits += r.Credits
		t.AddOns += r.AddOnCredits
	}
	for _, t := range byEndpoint {
		out.Totals = append(out.Totals, *t)
		out.Total.Requests += t.Requests
		out.Total.Errors += t.Errors
		out.Total.Credits += t.Credits
		out.Total.AddOns += t.AddOns
	}
	sort.Slice(out.Totals, func(i, j int) bool {
		if out.Totals[i].Credits != out.Totals[j].Credits {
			return out.Totals[i].Credits > out.Totals[j].Credits
		}
		if out.Totals[i].Requests != out.Totals[j].Requests {
			return out.Totals[i].Requests > out.Totals[j].Requests
		}
		return out.Totals[i].Endpoint < out.Totals[j].Endpoint
	})
	for i := range perDay {
		perDay[i].Day = from.AddDate(0, 0, i).Format("2006-01-02")
	}
	out.Chart = drawChart(perDay)
	for i := len(out.Chart.Bars) - 1; i >= 0; i-- {
		if b := out.Chart.Bars[i]; b.Requests > 0 {
			out.DayRows = append(out.DayRows, b)
		}
	}
	return out, nil
}

// drawChart lays out the bars in a 720x220 viewBox.
func drawChart(days []chartBar) chart {
	ch := chart{Width: 720, Height: 220, PlotTop: 10, PlotBottom: 190, PlotLeft: 44}
	maxReq := 0
	for _, b := range days {
		maxReq = max(maxReq, b.Requests)
	}
	ch.Empty = maxReq == 0
	top := niceCeil(max(maxReq, 1))
	plotH := ch.PlotBottom - ch.PlotTop
	slot := (float64(ch.Width) - ch.PlotLeft - 6) / float64(len(days))
	labelEvery := max(1, len(days)/6)
	for i, b := range days {
		b.X = ch.PlotLeft + float64(i)*slot + slot*0.15
		b.W = slot * 0.7
		total := float64(b.Requests) / float64(top) * plotH
		errH := float64(b.Errors) / float64(top) * plotH
		b.ErrH = errH
		b.ErrY = ch.PlotBottom - total
		b.OKH = total - errH
		b.OKY = ch.PlotBottom - total + errH
		b.HasRequests = b.Requests > 0
		b.Title = fmt.Sprintf("%s: %d requests, %d errors, %d credits", b.Day, b.Requests, b.Errors, b.Credits)
		b.LabelX = b.X + b.W/2
		b.LabelVisible = (len(days)-1-i)%labelEvery == 0
		if b.LabelVisible {
			ch.XTicks = append(ch.XTicks, chartTick{Pos: b.LabelX, Label: b.Day[5:]})
		}
		ch.Bars = append(ch.Bars, b)
	}
	for _, f := range []int{0, 2, 4} {
		v := top * f / 4
		ch.YTicks = append(ch.YTicks, chartTick{Pos: ch.PlotBottom - float64(v)/float64(top)*plotH, Label: strconv.Itoa(v)})
	}
	return ch
}

// niceCeil rounds n up to 1, 2 or 5 times a power of ten (and to a multiple of 4 for the ticks).
func niceCeil(n int) int {
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if v := m * p * 4; v >= n {
				return v
			}
		}
	}
}
