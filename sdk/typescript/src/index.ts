/**
 * seqd: ids from seqd, the sequence-number service, as bigint. Generators over a node-postgres Pool, the
 * same in every seqd client (docs/protocol.md): Async (nextval per value), Batch (ranges handed out from
 * memory) and AsyncBatch (the next range reserved in the background).
 */
export { SeqdError, kindOf, retryOf, type Kind } from "./errors.js";
export { Async, AsyncBatch, Batch, type BatchOptions, type Stats } from "./generators.js";
export { Range } from "./range.js";
export { Seqd, quote, type Queryable } from "./source.js";
export { ORDERED, Shape, parseShape } from "./shape.js";
