package store

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// bulkCharge runs a group of charges with a handful of statements instead of four per charge: it
// reads what decides them (known ids, keys, the months' totals), decides each charge in order in
// Go exactly as chargeTx would, and writes the accepted ones with one multi-row statement per
// table. Refusals go to errs and write nothing; any other error leaves the transaction to be
// rolled back.
func (db *DB) bulkCharge(ctx context.Context, tx *sql.Tx, group []*chargeReq, errs []error) error {
	// On PostgreSQL, the workspaces' rows, in id order: from here on no other node decides on these
	// workspaces' allowances, and what is read below is what they committed. The known ids are read
	// after the locks too: read before, an id another node billed meanwhile would count against the
	// allowance here a second time and could refuse a charge that fits (the ledger's unique key
	// would still keep it from being billed twice).
	wss := map[int64]bool{}
	for _, r := range group {
		wss[r.c.WorkspaceID] = true
	}
	for _, ws := range slices.Sorted(maps.Keys(wss)) {
		if err := db.lockWorkspace(ctx, tx, ws); err != nil {
			return err
		}
	}
	// Ids charged before: their charges are replays, which bill nothing and succeed.
	ids := make([]any, 0, len(group))
	for _, r := range group {
		ids = append(ids, r.c.ID)
	}
	known := map[string]bool{}
	if err := queryEach(ctx, tx, `SELECT charge_id FROM usage WHERE charge_id IN (`+marks(len(ids))+`)`, ids, func(rows *sql.Rows) error {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		known[id] = true
		return nil
	}); err != nil {
		return err
	}
	// What decides each charge, read once per key and month with chargeTx's own check.
	type keyInfo struct {
		allowance int
		test      bool
		found     bool
	}
	type keyMonth struct{ key, ws, month int64 }
	type wsMonth struct{ ws, month int64 }
	keys := map[[2]int64]*keyInfo{}
	used := map[wsMonth]int{}
	read := map[keyMonth]bool{}
	for _, r := range group {
		km := keyMonth{r.c.KeyID, r.c.WorkspaceID, monthKey(r.at)}
		if read[km] {
			continue
		}
		read[km] = true
		ki := &keyInfo{}
		var n int
		err := tx.QueryRowContext(ctx, chargeSQLCheck, km.month, km.key, km.ws).Scan(&ki.allowance, &ki.test, &n)
		switch {
		case err == nil:
			ki.found = true
			used[wsMonth{km.ws, km.month}] = n
		case err != sql.ErrNoRows:
			return err
		}
		keys[[2]int64{km.key, km.ws}] = ki
	}
	var accepted []*chargeReq
	added := map[wsMonth]int{}
	for i, r := range group {
		ki := keys[[2]int64{r.c.KeyID, r.c.WorkspaceID}]
		m := wsMonth{r.c.WorkspaceID, monthKey(r.at)}
		switch {
		case !ki.found:
			errs[i] = fmt.Errorf("key %d of workspace %d: %w", r.c.KeyID, r.c.WorkspaceID, ErrNotFound)
		case ki.test:
			errs[i] = fmt.Errorf("%w: sandbox keys are never billed", ErrInvalid)
		case known[r.c.ID]:
			// a replay (of an earlier request, or of one earlier in this group): nothing to write
		case used[m]+r.c.Credits > ki.allowance:
			errs[i] = fmt.Errorf("%w: %d of %d used, %d more asked", ErrInsufficientCredits, used[m], ki.allowance, r.c.Credits)
		default:
			known[r.c.ID] = true
			used[m] += r.c.Credits
			added[m] += r.c.Credits
			accepted = append(accepted, r)
		}
	}
	if len(accepted) == 0 {
		return nil
	}
	usage := make([]any, 0, 6*len(accepted))
	logs := make([]any, 0, 9*len(accepted))
	for _, r := range accepted {
		usage = append(usage, r.c.ID, r.c.WorkspaceID, r.c.KeyID, r.c.Endpoint, r.c.Credits, ms(r.at))
		logs = append(logs, logArgs(r.log)...)
	}
	// The ledger's unique key, not the check above, is what makes a charge exactly once: an id
	// inserted meanwhile (by another node, on PostgreSQL) is not returned, and bills nothing.
	inserted := map[string]bool{}
	if err := queryEach(ctx, tx, usageInsert+rowMarks(len(accepted), 6)+` ON CONFLICT (charge_id) DO NOTHING RETURNING charge_id`, usage, func(rows *sql.Rows) error {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		inserted[id] = true
		return nil
	}); err != nil {
		return err
	}
	if len(inserted) < len(accepted) {
		clear(added)
		logs = logs[:0]
		for _, r := range accepted {
			if inserted[r.c.ID] {
				added[wsMonth{r.c.WorkspaceID, monthKey(r.at)}] += r.c.Credits
				logs = append(logs, logArgs(r.log)...)
			}
		}
		if len(logs) == 0 {
			return nil
		}
	}
	for m, n := range added {
		if _, err := tx.ExecContext(ctx, chargeSQLMonth, m.ws, m.month, n); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, logInsert+rowMarks(len(logs)/logCols, logCols)+logKeepFirst, logs...)
	return err
}

func queryEach(ctx context.Context, tx *sql.Tx, q string, args []any, each func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// marks is "?, ?, ..." for n parameters.
func marks(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// rowMarks is "(?, ?), (?, ?), ..." for rows of cols parameters.
func rowMarks(rows, cols int) string {
	row := "(" + marks(cols) + ")"
	return strings.TrimSuffix(strings.Repeat(row+", ", rows), ", ")
}
