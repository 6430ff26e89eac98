package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/seqd/seqd/storage"
)

// Rename gives a sequence a new name, in its schema or another (ALTER
// SEQUENCE ... RENAME TO, SET SCHEMA). One durable write deletes the old
// record and writes the new one; the sequence keeps its identity and its
// exact position (the window is given up, as other DDL gives it up).
func (e *Engine) Rename(ctx context.Context, from, to Name) error {
	e.catMu.Lock()
	err := e.waitCreatorsLocked(ctx, to)
	e.catMu.Unlock()
	if err != nil {
		return err
	}
	s, err := e.lookupIdle(ctx, from)
	if err != nil {
		return err
	}
	e.catMu.Lock()
	switch {
	case e.creatorLocked(ctx, to) != nil:
		// A transaction took the name since: it has it.
		err = &Error{Kind: ErrExists, Msg: fmt.Sprintf("relation \"%s\" already exists in schema \"%s\"", to.Rel(), to.Schema())}
	case e.closing:
		err = closedError()
	case e.seqs[to.key] != nil:
		err = &Error{Kind: ErrExists, Msg: fmt.Sprintf("relation \"%s\" already exists in schema \"%s\"", to.Rel(), to.Schema())}
	default:
		err = e.schemaUsableLocked(to.Schema())
	}
	if err != nil {
		e.catMu.Unlock()
		s.mu.Unlock()
		return err
	}
	// REQUIRES: catMu before s.mu (the lock order); s is idle and ours.
	e.setSeqLocked(to.key, s)
	e.catMu.Unlock()
	s.writing, s.remaining, s.granted = true, 0, 0
	rec := record{id: s.id, opts: s.opts, state: s.cur, unlogged: s.unlogged, epoch: s.epoch}
	del := storage.Op{Key: s.key, Expect: s.rev}
	s.mu.Unlock()
	err = e.commit(s, storage.Op{Key: to.key, Value: rec.encode()}, func(rev storage.Rev) {
		s.key, s.rev = to.key, rev
		s.window, s.lastRefill = 0, 0
	}, del)
	e.catMu.Lock()
	defer e.catMu.Unlock()
	if err != nil {
		if e.seqs[to.key] == s {
			e.delSeqLocked(to.key)
		}
		return err
	}
	if e.seqs[from.key] == s {
		e.delSeqLocked(from.key)
	}
	e.catalogVersion.Add(1)
	return nil
}

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
	e.commentMu.Lock()
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
