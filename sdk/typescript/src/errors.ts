/** Errors, classified by SQLSTATE as docs/protocol.md's table says. */

export type Kind =
  | "not_found"
  | "limit_reached"
  | "invalid"
  | "auth"
  | "conflict"
  | "unavailable"
  | "closed"
  | "other";

/**
 * A failure of a seqd call, with the server's SQLSTATE when there is one. retryable: sending the request
 * again is safe and may succeed (a reservation whose outcome was unknown is burned, never repeated).
 */
export class SeqdError extends Error {
  readonly kind: Kind;
  readonly sqlstate: string | null;
  readonly retryable: boolean;

  constructor(
    message: string,
    kind: Kind = "other",
    sqlstate: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "SeqdError";
    this.kind = kind;
    this.sqlstate = sqlstate;
    this.retryable = kind === "conflict" || kind === "unavailable";
  }
}

const byState: Record<string, Kind> = {
  "42P01": "not_found",
  "2200H": "limit_reached",
  "22003": "limit_reached",
  "22023": "invalid",
  "42601": "invalid",
  "28P01": "auth",
  "42501": "auth",
  "40001": "conflict",
  "40P01": "conflict",
  "25006": "unavailable",
  "58030": "unavailable",
  "57P01": "unavailable",
  "57P02": "unavailable",
  "57P03": "unavailable",
  "53300": "unavailable",
  "53100": "unavailable",
  "57014": "unavailable",
};

/** The kind of an SQLSTATE. */
export function kindOf(sqlstate: string | null | undefined): Kind {
  if (!sqlstate) return "other";
  if (sqlstate.startsWith("08")) return "unavailable";
  return byState[sqlstate] ?? "other";
}

/** docs/protocol.md's retry column: "no", "yes" or "another_host". */
export function retryOf(sqlstate: string): "no" | "yes" | "another_host" {
  if (sqlstate === "25006" || sqlstate === "58030") return "another_host";
  const k = kindOf(sqlstate);
  return k === "conflict" || k === "unavailable" ? "yes" : "no";
}

/** A SeqdError for a driver error, keeping its SQLSTATE and cause. */
export function wrap(op: string, name: string, err: unknown): SeqdError {
  const code = (err as { code?: unknown } | null)?.code;
  const state = typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : null;
  // No SQLSTATE: the connection failed (ECONNREFUSED, ECONNRESET, ...).
  const kind = state === null ? "unavailable" : kindOf(state);
  const msg = err instanceof Error ? err.message : String(err);
  return new SeqdError(`seqd: ${op} ${JSON.stringify(name)}: ${msg}`, kind, state, { cause: err });
}
