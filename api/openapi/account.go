package openapi

import (
	"fmt"

	"asa/engine/errcode"
)

// The usage API: GET /api/v1/account and GET /api/v1/usage (docs/api.md#account-and-usage).

func (g *gen) accountPaths(paths *obj) {
	paths.set("/api/v1/account", obj{{"get", g.accountOperation()}})
	paths.set("/api/v1/usage", obj{{"get", g.usageOperation()}})
	integer := obj{{"type", "integer"}, {"minimum", 0}}
	g.schemas.set("Account", obj{
		{"type", "object"},
		{"description", "The caller's workspace: plan, the key's limits and this month's credits."},
		{"required", []any{"plan", "key", "limits", "credits", "cost_per_request"}},
		{"properties", obj{
			{"plan", obj{{"type", "string"}, {"enum", []any{"free", "vibe", "pro", "custom"}}}},
			{"key", obj{{"type", "object"}, {"required", []any{"prefix", "mode"}}, {"properties", obj{
				{"prefix", obj{{"type", "string"}, {"description", "asa_live_ or asa_test_ and the key's short prefix; never the whole key."}}},
				{"mode", obj{{"type", "string"}, {"enum", []any{"live", "sandbox"}}}},
			}}}},
			{"limits", obj{{"type", "object"}, {"required", []any{"concurrency", "requests_per_second", "burst", "burst_window_seconds"}}, {"properties", obj{
				{"concurrency", obj{{"type", "integer"}, {"description", "Requests in flight at once, per key."}}},
				{"requests_per_second", obj{{"type", "number"}, {"description", "Sustained requests per second, per key."}}},
				{"burst", obj{{"type", "integer"}, {"description", "Requests admitted in any burst window, per key."}}},
				{"burst_window_seconds", obj{{"type", "integer"}}},
			}}}},
			{"credits", obj{{"type", "object"}, {"required", []any{"month", "monthly", "used", "left", "resets_at"}}, {"properties", obj{
				{"month", obj{{"type", "string"}, {"description", "The calendar month (UTC), YYYY-MM."}, {"pattern", `^\d{4}-\d{2}$`}}},
				{"monthly", obj{{"type", "integer"}, {"description", "The workspace's monthly allowance."}}},
				{"used", obj{{"type", "integer"}, {"description", "Credits charged this month, by every key of the workspace."}}},
				{"left", integer},
				{"resets_at", obj{{"type", "string"}, {"format", "date-time"}}},
			}}}},
			{"cost_per_request", obj{{"type", "integer"}, {"description", "Credits of one successful standard request."}}},
		}},
	})
	counts := func(desc string, extra obj) obj {
		props := obj{{"requests", integer}, {"credits", integer}, {"errors", obj{{"type", "integer"}, {"minimum", 0}, {"description", "Requests answered with a non-2xx status."}}}}
		req := []any{"requests", "credits", "errors"}
		for _, kv := range extra {
			props.set(kv.k, kv.v)
			req = append(req, kv.k)
		}
		return obj{{"type", "object"}, {"description", desc}, {"required", req}, {"properties", props}}
	}
	g.schemas.set("UsageReport", obj{
		{"type", "object"},
		{"description", "Requests, credits and errors per UTC day of the range, every day listed (zero when idle)."},
		{"required", []any{"from", "to", "key", "endpoint", "days", "total"}},
		{"properties", obj{
			{"from", obj{{"type", "string"}, {"format", "date"}}},
			{"to", obj{{"type", "string"}, {"format", "date"}}},
			{"key", obj{{"type", []any{"string", "null"}}, {"description", "The key filter's short prefix, or null."}}},
			{"endpoint", obj{{"type", []any{"string", "null"}}, {"description", "The endpoint filter, or null."}}},
			{"days", obj{{"type", "array"}, {"items", counts("One day.", obj{
				{"date", obj{{"type", "string"}, {"format", "date"}}},
				{"endpoints", obj{{"type", "array"}, {"items", counts("One endpoint on that day.", obj{{"endpoint", obj{{"type", "string"}}}})}}},
			})}}},
			{"total", counts("The whole range.", nil)},
		}},
	})
}

func (g *gen) freeResponses(schema, desc string) obj {
	responses := obj{{"200", obj{
		{"description", desc},
		{"headers", obj{{"Asa-Request-Id", hdr("Asa-Request-Id")}, {"Asa-Cost", hdr("Asa-Cost")}}},
		{"content", obj{{"application/json", obj{{"schema", ref(schema)}}}}},
	}}}
	g.addErrors(&responses, errcode.InvalidParams)
	g.addErrors(&responses, errcode.Unauthorized, errcode.Revoked)
	g.addErrors(&responses, errcode.RateLimited)
	g.addErrors(&responses, errcode.InternalError)
	g.addErrors(&responses, errcode.ServiceUnavailable)
	return responses
}

func (g *gen) accountOperation() obj {
	return obj{
		{"tags", []any{"account"}},
		{"summary", "Plan, limits and credits"},
		{"description", "The caller's workspace: its plan, the key's limits, and the credits used and left this calendar month (UTC). Free (Asa-Cost: 0), within the key's rate limits. A sandbox key answers for its workspace too."},
		{"operationId", "get_account"},
		{"responses", g.freeResponses("Account", "The account.")},
	}
}

func (g *gen) usageOperation() obj {
	responses := g.freeResponses("UsageReport", "The report.")
	g.addErrors(&responses, errcode.NotFound)
	return obj{
		{"tags", []any{"account"}},
		{"summary", "Usage per day"},
		{"description", fmt.Sprintf("Requests, credits and errors per UTC day of the caller's workspace, per endpoint, from the request log (sandbox requests included, at 0 credits; calls of this API are not counted). Free (Asa-Cost: 0). At most %d days per report; a bad date or range is 400 invalid_params, a key filter naming a key of another workspace 404 not_found.", g.opt.MaxUsageDays)},
		{"operationId", "get_usage"},
		{"parameters", []any{
			obj{{"name", "from"}, {"in", "query"}, {"description", "First day, YYYY-MM-DD (UTC). Default: the first day of this month."}, {"schema", obj{{"type", "string"}, {"format", "date"}}}},
			obj{{"name", "to"}, {"in", "query"}, {"description", "Last day, inclusive. Default: today."}, {"schema", obj{{"type", "string"}, {"format", "date"}}}},
			obj{{"name", "key"}, {"in", "query"}, {"description", "One key of the workspace: its short prefix (12 characters), alone or after asa_live_ / asa_test_."}, {"schema", obj{{"type", "string"}}}},
			obj{{"name", "endpoint"}, {"in", "query"}, {"description", "One endpoint, site.resource (universal.get for the universal endpoint)."}, {"schema", obj{{"type", "string"}}}},
		}},
		{"responses", responses},
	}
}
