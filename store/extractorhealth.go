package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// FillRow is one hour's fill counts of one field of one endpoint version (migration 0007): of
// Responses live successes that could show the field, Items values were looked at (one per
// response for a top-level field, the list's items for "list[].field") and Filled had one.
type FillRow struct {
	Hour      time.Time // the hour's start, UTC; zero in totals
	Endpoint  string
	Version   string // "" in totals, which add up every version
	Field     string
	Responses int64
	Items     int64
	Filled    int64
}

// OutcomeRow counts one hour's runs of one endpoint version that ended with Code ("" for a
// success).
type OutcomeRow struct {
	Hour     time.Time
	Endpoint string
	Version  string
	Code     string
	Count    int64
}

// HealthQuery selects extractor health rows: the hours in [From, To) of one endpoint ("" for
// all), per hour and version (ByHour) or summed over both.
type HealthQuery struct {
	From, To time.Time
	Endpoint string
	ByHour   bool
}

// HealthRetention is how long extractor health rows are kept.
const HealthRetention = 30 * 24 * time.Hour

func hourOf(t time.Time) int64 { return t.Unix() / 3600 }

func fromHour(h int64) time.Time { return time.Unix(h*3600, 0).UTC() }

const (
	fillUpsert = `INSERT INTO extractor_fill (hour, endpoint, version, field, responses, items, filled) VALUES (?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (hour, endpoint, version, field) DO UPDATE SET responses = extractor_fill.responses + excluded.responses,
	  items = extractor_fill.items + excluded.items, filled = extractor_fill.filled + excluded.filled`
	outcomeUpsert = `INSERT INTO extractor_outcomes (hour, endpoint, version, code, count) VALUES (?, ?, ?, ?, ?)
	ON CONFLICT (hour, endpoint, version, code) DO UPDATE SET count = extractor_outcomes.count + excluded.count`
)

// AddExtractorHealth adds a node's counts to the hours' rows in one transaction: rows written by
// several nodes (or by one node several times an hour) add up.
func (db *DB) AddExtractorHealth(ctx context.Context, fills []FillRow, outcomes []OutcomeRow) error {
	if len(fills) == 0 && len(outcomes) == 0 {
		return nil
	}
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		if len(fills) > 0 {
			st, err := tx.PrepareContext(ctx, fillUpsert)
			if err != nil {
				return err
			}
			defer st.Close()
			for _, r := range fills {
				if _, err := st.ExecContext(ctx, hourOf(r.Hour), r.Endpoint, r.Version, r.Field, r.Responses, r.Items, r.Filled); err != nil {
					return err
				}
			}
		}
		if len(outcomes) > 0 {
			st, err := tx.PrepareContext(ctx, outcomeUpsert)
			if err != nil {
				return err
			}
			defer st.Close()
			for _, r := range outcomes {
				if _, err := st.ExecContext(ctx, hourOf(r.Hour), r.Endpoint, r.Version, r.Code, r.Count); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("adding extractor health: %w", classify(err))
	}
	return nil
}

// ExtractorHealth reads the fill and outcome rows q selects, ordered by endpoint, then hour and
// version (ByHour), then field or code.
func (db *DB) ExtractorHealth(ctx context.Context, q HealthQuery) ([]FillRow, []OutcomeRow, error) {
	where := ` WHERE hour >= ? AND hour < ?`
	args := []any{hourOf(q.From), hourOf(q.To)}
	if q.To.Unix()%3600 != 0 {
		args[1] = hourOf(q.To) + 1 // the hour To falls in is included
	}
	if q.Endpoint != "" {
		where += ` AND endpoint = ?`
		args = append(args, q.Endpoint)
	}
	cols, group := `0, endpoint, '', `, ` GROUP BY endpoint, `
	if q.ByHour {
		cols, group = `hour, endpoint, version, `, ` GROUP BY hour, endpoint, version, `
	}
	var fills []FillRow
	err := db.query(ctx, `SELECT `+cols+`field, SUM(responses), SUM(items), SUM(filled) FROM extractor_fill`+where+group+`field ORDER BY endpoint, 1, 3, field`,
		args, func(rows *sql.Rows) error {
			var r FillRow
			var h int64
			if err := rows.Scan(&h, &r.Endpoint, &r.Version, &r.Field, &r.Responses, &r.Items, &r.Filled); err != nil {
				return err
			}
			if q.ByHour {
				r.Hour = fromHour(h)
			}
			fills = append(fills, r)
			return nil
		})
	if err != nil {
		return nil, nil, fmt.Errorf("reading extractor fill rates: %w", err)
	}
	var outs []OutcomeRow
	err = db.query(ctx, `SELECT `+cols+`code, SUM(count) FROM extractor_outcomes`+where+group+`code ORDER BY endpoint, 1, 3, code`,
		args, func(rows *sql.Rows) error {
			var r OutcomeRow
			var h int64
			if err := rows.Scan(&h, &r.Endpoint, &r.Version, &r.Code, &r.Count); err != nil {
				return err
			}
			if q.ByHour {
				r.Hour = fromHour(h)
			}
			outs = append(outs, r)
			return nil
		})
	if err != nil {
		return nil, nil, fmt.Errorf("reading extractor outcomes: %w", err)
	}
	return fills, outs, nil
}

// PurgeExtractorHealth deletes the rows of hours that started before before.
func (db *DB) PurgeExtractorHealth(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		for _, table := range []string{"extractor_fill", "extractor_outcomes"} {
			res, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE hour < ?`, hourOf(before))
			if err != nil {
				return err
			}
			k, _ := res.RowsAffected()
			n += k
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("purging extractor health: %w", classify(err))
	}
	return n, nil
}

// query runs a read on the readers' pool and calls each for every row.
func (db *DB) query(ctx context.Context, q string, args []any, each func(*sql.Rows) error) error {
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return classify(rows.Err())
}
