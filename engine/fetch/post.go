package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/textproto"
	"strings"

	"asa/engine/errcode"
)

// PostWebhook sends one of the service's own webhooks, the one way the client posts: user-URL
// guard at parse, resolve and dial time, direct egress, no redirects (a 3xx comes back as the Result,
// for the caller to count as a failure), one attempt, WebhookTimeout, the answer truncated to
// WebhookMaxBodyBytes, no keep-alive (each delivery resolves and checks the name anew), and
// Content-Type application/json. Unlike Do, it sends the X-ASA-* headers in header (X-ASA-Batch-Id,
// X-ASA-Event, X-ASA-Signature): those are refused in user-supplied requests so that nobody can pass
// for us, and a webhook is us. The other forbidden headers are still dropped.
func (c *Client) PostWebhook(ctx context.Context, rawURL string, body []byte, header http.Header) (*Result, error) {
	u, err := c.guard.checkURL(rawURL, true)
	if err != nil {
		return nil, invalidURL(err)
	}
	if len(body) > MaxRequestBody {
		return nil, &errcode.Error{Code: errcode.InvalidParams, Message: fmt.Sprintf("the request body is over %d bytes", MaxRequestBody), Params: []string{"body"}}
	}
	h := mergeHeaders(http.Header{"Accept-Encoding": {AcceptEncoding}, "User-Agent": {WebhookUserAgent}}, header)
	for k, v := range header {
		if ck := textproto.CanonicalMIMEHeaderKey(k); strings.HasPrefix(ck, "X-Asa-") {
			h[ck] = append([]string(nil), v...)
		}
	}
	h.Set("Content-Type", "application/json")
	sp := &spec{
		method:    http.MethodPost,
		url:       u,
		header:    h,
		body:      body,
		timeout:   WebhookTimeout,
		maxBody:   WebhookMaxBodyBytes,
		redirects: NoRedirects,
		user:      true,
		direct:    true,
		truncate:  true,
		attempts:  1,
		close:     true,
	}
	res, attempts, err := c.run(ctx, sp)
	if err != nil {
		return nil, err
	}
	res.Attempts = attempts
	return res, nil
}
