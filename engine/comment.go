package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/seqd/seqd/storage"
)

// Comments (COMMENT ON SEQUENCE) are catalog records keyed by the
// sequence's ID, so that they follow it through renames; the value is the
// text. This layout is part of the on-disk format.
const commentPrefix = catalogPrefix + "comment:"

func commentKey(id uint64) string { return commentPrefix + strconv.FormatUint(id, 16) }

type comment struct {
	text string
	rev  storage.Rev
}

func (e *Engine) loadComment(kv storage.KV) error {
	id, err := strconv.ParseUint(strings.TrimPrefix(kv.Key, commentPrefix), 16, 64)
	if err != nil {
		return fmt.Errorf("seqd: corrupt comment record %q", kv.Key)
	}
	e.comments[id] = comment{text: string(kv.Value), rev: kv.Rev}
	return nil
}

// Comment is the sequence's comment, "" if it has none.
func (e *Engine) Comment(n Name) (string, error) {
	info, err := e.Info(n)
	if err != nil {
		return "", err
	}
	e.catMu.RLock()
	defer e.catMu.RUnlock()
	return e.comments[info.ID].text, nil
}

// SetComment sets the sequence's comment durably; "" removes it.
func (e *Engine) SetComment(ctx context.Context, n Name, text string) error {
	if err := e.waitUnlocked(ctx, n); err != nil {
		return err
	}
	e.commentMu.Lock() // invariant 9
	defer e.commentMu.Unlock()
	info, err := e.Info(n)
	if err != nil {
		return err
	}
	e.catMu.Lock()
	old, had := e.comments[info.ID]
	e.catMu.Unlock()
	op := storage.Op{Key: commentKey(info.ID), Expect: old.rev}
	if text != "" {
		op.Value = []byte(text)
	} else if !had {
		return nil
	}
	rev, err := e.writeCatalog(op)
	if err != nil {
		return err
	}
	e.catMu.Lock()
	defer e.catMu.Unlock()
	if text == "" {
		delete(e.comments, info.ID)
	} else {
		e.comments[info.ID] = comment{text: text, rev: rev}
	}
	return nil
}
