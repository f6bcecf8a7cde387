package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"asa/store"
)

// DashboardBatches are the batch reads of the dashboard; *store.DB implements them. Both are
// scoped by workspace: another workspace's batch is as unknown as one that never existed.
type DashboardBatches interface {
	WorkspaceBatches(ctx context.Context, workspaceID int64, limit int) ([]store.Batch, error)
	BatchPage(ctx context.Context, workspaceID int64, id string, offset, limit int) (store.Batch, []store.ItemResult, error)
}

func init() {
	dashboardExtensions = append(dashboardExtensions, dashboardExtension{
		setup: func(d *dashboard) { _, d.batchPages = d.store.(DashboardBatches) },
		routes: func(d *dashboard, g *echo.Group) {
			bs, ok := d.store.(DashboardBatches)
			if !ok {
				return
			}
			g.GET("/batches", d.requireViewer(func(c echo.Context, v *viewer) error { return d.batchList(c, v, bs) }))
			g.GET("/batches/:id", d.requireViewer(func(c echo.Context, v *viewer) error { return d.batchDetail(c, v, bs) }))
		},
	})
}

// batchListLimit is how many batches the list shows, newest first.
const batchListLimit = 200

// batchItemsPage is how many items the batch page shows at once.
const batchItemsPage = 50

type batchRow struct {
	ID, Endpoint, Status, Mode          string
	Total, Processed, Succeeded, Failed int
	Credits                             int
	Created, Started, Completed         string
	Webhook                             string
	WebhookError                        string
}

func toBatchRow(b store.Batch) batchRow {
	mode := "live"
	if b.Test {
		mode = "sandbox"
	}
	r := batchRow{ID: b.ID, Endpoint: b.Endpoint, Status: b.Status, Mode: mode, Total: b.Total, Processed: b.Processed,
		Succeeded: b.Succeeded, Failed: b.Failed, Credits: b.Credits, Created: fmtTime(b.CreatedAt),
		Webhook: b.WebhookStatus, WebhookError: b.WebhookLastError}
	if !b.StartedAt.IsZero() {
		r.Started = fmtTime(b.StartedAt)
	}
	if !b.CompletedAt.IsZero() {
		r.Completed = fmtTime(b.CompletedAt)
	}
	return r
}

func (d *dashboard) batchList(c echo.Context, v *viewer, bs DashboardBatches) error {
	list, err := bs.WorkspaceBatches(c.Request().Context(), v.Workspace.ID, batchListLimit)
	if err != nil {
		return d.fail(c, err)
	}
	rows := make([]batchRow, len(list))
	for i, b := range list {
		rows[i] = toBatchRow(b)
	}
	return d.render(c, http.StatusOK, "batches", &view{Title: "Batches", Nav: "batches", Viewer: v, Data: rows})
}

type batchItem struct {
	Index      int
	Status     string
	HTTPStatus int
	Error      string
	Duration   string
	Credits    int
	Input      string
	Data       string
	Truncated  bool
}

type batchDetailData struct {
	Batch    batchRow
	Items    []batchItem
	Offset   int
	Prev     int
	Next     int
	HasPrev  bool
	HasNext  bool
	Unseen   int // items in this page's range not finished yet
	RangeEnd int
	Last     int
}

func fmtDuration(d time.Duration) string {
	if d < time.Millisecond {
		return "<1ms"
	}
	return d.Round(time.Millisecond).String()
}

// maxShownData bounds the JSON shown per item; the poll endpoint has it all.
const maxShownData = 64 << 10

func prettyJSON(raw []byte, limit int) (string, bool) {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		b.Reset()
		b.Write(raw)
	}
	if b.Len() > limit {
		return b.String()[:limit], true
	}
	return b.String(), false
}

func (d *dashboard) batchDetail(c echo.Context, v *viewer, bs DashboardBatches) error {
	offset, _ := strconv.Atoi(c.QueryParam("offset"))
	offset = max(offset, 0)
	b, items, err := bs.BatchPage(c.Request().Context(), v.Workspace.ID, c.Param("id"), offset, batchItemsPage)
	if errors.Is(err, store.ErrNotFound) {
		return d.notFound(c)
	}
	if err != nil {
		return d.fail(c, err)
	}
	data := batchDetailData{Batch: toBatchRow(b), Offset: offset, Prev: max(offset-batchItemsPage, 0), Next: offset + batchItemsPage,
		HasPrev: offset > 0, HasNext: offset+batchItemsPage < b.Total, RangeEnd: min(offset+batchItemsPage, b.Total)}
	data.Last = data.RangeEnd - 1
	for _, it := range items {
		bi := batchItem{Index: it.Index, Status: it.Status, HTTPStatus: it.HTTPStatus, Error: it.ErrorCode,
			Duration: fmtDuration(it.Duration), Credits: it.Credits}
		bi.Input, _ = prettyJSON(it.Input, maxShownData)
		bi.Data, bi.Truncated = prettyJSON(it.Data, maxShownData)
		data.Items = append(data.Items, bi)
	}
	data.Unseen = max(data.RangeEnd-offset-len(items), 0)
	return d.render(c, http.StatusOK, "batch", &view{Title: "Batch " + b.ID, Nav: "batches", Viewer: v, Data: &data})
}
