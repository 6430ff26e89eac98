// nextval, setval and reservations through a transaction: served by its
// own copy of a sequence it created or rewrote, else by the committed one.

package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/seqd/seqd/seqmath"
)

// target is where n's values come from: the shadow engine or the server's
// (under the name it has there), with the context that passes the
// transaction's locks.
func (t *Txn) target(ctx context.Context, n Name) (*Engine, Name, context.Context, uint64, error) {
	ent, s, err := t.find(n)
	if err != nil {
		return nil, Name{}, ctx, 0, err
	}
	switch {
	case s != nil:
		return t.e, n, withTxn(ctx, t), 0, nil
	case ent.shadow.key != "":
		if err := t.shadowServes(ent); err != nil {
			return nil, Name{}, ctx, 0, err
		}
		return t.shadow, ent.shadow, ctx, ent.id, nil
	}
	on, _ := nameFromKey(ent.origin.key)
	return t.e, on, withTxn(ctx, t), ent.id, nil
}

// shadowServes refuses values from the transaction's copy of a NOORDER
// sequence in cluster mode whose position it did not set: the nodes'
// blocks are beyond the copy's position.
func (t *Txn) shadowServes(ent entry) error {
	if t.e.ranges == nil || ent.origin == nil {
		return nil
	}
	s := ent.origin
	s.mu.Lock()
	noOrder, epoch := s.opts.NoOrder, s.epoch
	s.mu.Unlock()
	info, err := t.shadow.Info(ent.shadow)
	if err != nil || !noOrder || info.Epoch != epoch {
		return err
	}
	return &Error{Kind: ErrUnsupported, Msg: fmt.Sprintf("cannot take values of NOORDER sequence \"%s\" altered in this transaction block", ent.view.Rel()),
		Hint: "COMMIT first, or set its position in the block (setval, RESTART)."}
}

// Nextval is the engine's, for the sequence as the transaction sees it.
func (t *Txn) Nextval(ctx context.Context, n Name) (uint64, int64, error) {
	eng, tn, ctx, id, err := t.target(ctx, n)
	if err != nil {
		return 0, 0, err
	}
	got, v, err := eng.Nextval(ctx, tn)
	if id != 0 {
		got = id
	}
	return got, v, asNamed(err, tn, n)
}

// Setval is the engine's, for the sequence as the transaction sees it.
func (t *Txn) Setval(ctx context.Context, n Name, v int64, called bool) (uint64, error) {
	eng, tn, ctx, id, err := t.target(ctx, n)
	if err != nil {
		return 0, err
	}
	got, err := eng.Setval(ctx, tn, v, called)
	if id != 0 {
		got = id
	}
	return got, asNamed(err, tn, n)
}

// SetvalAhead is the engine's, for the sequence as the transaction sees
// it.
func (t *Txn) SetvalAhead(ctx context.Context, n Name, v int64, called bool) (uint64, bool, error) {
	eng, tn, ctx, id, err := t.target(ctx, n)
	if err != nil {
		return 0, false, err
	}
	got, moved, err := eng.SetvalAhead(ctx, tn, v, called)
	if id != 0 {
		got = id
	}
	return got, moved, asNamed(err, tn, n)
}

// Reserve is the engine's, for the sequence as the transaction sees it.
func (t *Txn) Reserve(ctx context.Context, n Name, count int64) (uint64, seqmath.Range, error) {
	return t.reserve(ctx, n, count, true)
}

// ReserveUpTo is the engine's, for the sequence as the transaction sees it.
func (t *Txn) ReserveUpTo(ctx context.Context, n Name, count int64) (uint64, seqmath.Range, error) {
	return t.reserve(ctx, n, count, false)
}

func (t *Txn) reserve(ctx context.Context, n Name, count int64, whole bool) (uint64, seqmath.Range, error) {
	eng, tn, ctx, id, err := t.target(ctx, n)
	if err != nil {
		return 0, seqmath.Range{}, err
	}
	got, r, err := eng.reserveRange(ctx, tn, count, whole)
	if id != 0 {
		got = id
	}
	return got, r, asNamed(err, tn, n)
}

// Release is the engine's, for the sequence as the transaction sees it.
func (t *Txn) Release(n Name, first, last int64) (int64, error) {
	eng, tn, _, _, err := t.target(context.Background(), n)
	if err != nil {
		return 0, err
	}
	v, err := eng.Release(tn, first, last)
	return v, asNamed(err, tn, n)
}

// asNamed rewrites an error about the sequence the transaction's view n
// stands for (its copy in the shadow engine, or the committed sequence
// under its old name) to name it as the session knows it.
func asNamed(err error, from, to Name) error {
	if err == nil || from.Rel() == to.Rel() {
		return err
	}
	fix := func(msg string) string {
		return strings.Replace(msg, `"`+from.Rel()+`"`, `"`+to.Rel()+`"`, 1)
	}
	var ae *seqmath.Error
	var ee *Error
	switch {
	case errors.As(err, &ae):
		return &seqmath.Error{Kind: ae.Kind, Msg: fix(ae.Msg)}
	case errors.As(err, &ee):
		return &Error{Kind: ee.Kind, Msg: fix(ee.Msg), Err: ee.Err}
	}
	return err
}
