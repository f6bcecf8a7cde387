// Package redisrevoke carries API key revocations between the nodes of a deployment over Redis
// pub/sub, so that each node's auth cache forgets a revoked key at once rather than when its entry
// expires. Pub/sub delivers to whoever listens at the moment: a node that was disconnected may have
// missed messages, so every (re)subscription is reported as "forget everything".
package redisrevoke

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Channel is the pub/sub channel of revocations; a message is a key's short prefix.
const Channel = "asa:revoked"

// Bus publishes and receives revocations.
type Bus struct {
	rdb *redis.Client
}

// Open connects to the Redis at url (redis://...). It does not wait for Redis to answer.
func Open(url string) (*Bus, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	opt.DialTimeout, opt.DialerRetries = time.Second, 1
	return &Bus{rdb: redis.NewClient(opt)}, nil
}

// Close closes the connections.
func (b *Bus) Close() error { return b.rdb.Close() }

// Publish announces that the key of this short prefix was revoked.
func (b *Bus) Publish(ctx context.Context, short string) error {
	if err := b.rdb.Publish(ctx, Channel, short).Err(); err != nil {
		return fmt.Errorf("redis publish revocation: %w", err)
	}
	return nil
}

// Subscribe calls fn with the short prefix of every revocation published, and with "" (forget
// everything: messages may have been missed) each time the subscription is made or remade after a
// lost connection, until ctx is done. Errors while Redis is unreachable go to onErr; it retries every
// second.
func (b *Bus) Subscribe(ctx context.Context, fn func(short string), onErr func(error)) {
	ps := b.rdb.Subscribe(ctx, Channel)
	defer ps.Close()
	stop := context.AfterFunc(ctx, func() { ps.Close() })
	defer stop()
	for {
		msg, err := ps.Receive(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if onErr != nil {
				onErr(err)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			continue
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				fn("")
			}
		case *redis.Message:
			fn(m.Payload)
		}
	}
}
