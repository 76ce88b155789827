/**
 * A downstream answer too large to decode, filter and cap on the event loop
 * in a few milliseconds is handed over whole, with what its cap needs, and
 * comes back as the text to send. Implemented by `WorkerLargeAnswers` (a
 * worker thread); the pipeline keeps small answers in-thread.
 */

/**
 * Answers above this many bytes leave the event loop. Measured on the bench
 * machine (decode, privacy filter, serialization; the cap's own cost does not
 * grow with the answer): 64 KiB costs 1–3 ms in-thread whatever its shape,
 * 256 KiB already 5–25 ms (objects with many distinct keys are the worst),
 * 1 MiB 35–95 ms. Typical tool answers (a record, a page of a list) are a few
 * KiB and never pay the worker hop.
 */
export const DEFAULT_LARGE_ANSWER_BYTES = 64 * 1024;

/**
 * What to work on: the downstream's bytes (filtered here), or a cached answer's text (filtered before it was stored).
 */
export type AnswerSource =
  | { kind: 'downstream'; bytes: Uint8Array; contentType: string | undefined }
  | { kind: 'cached'; text: string };

export interface AnswerTask {
  toolName: string;
  source: AnswerSource;
  /** The call's cap: what its reservation granted. */
  maxTokens: number;
  /** Whether the filtered answer's JSON text is wanted back, to store in the cache. */
  wantCacheText: boolean;
}

/** Only what the call still needs: never the parsed answer itself, which would cost the event loop to clone back. */
export interface ProcessedAnswer {
  /** The capped JSON text, as `capResponse` gives it. */
  text: string;
  tokens: number;
  truncated: boolean;
  /** The whole filtered answer as JSON text, when `wantCacheText` was set and the answer came from the downstream. */
  cacheText?: string;
}

export interface LargeAnswers {
  /** Answers longer than this (bytes read, or characters of cached text) are given to `process`. */
  readonly thresholdBytes: number;
  /**
   * Decodes, filters and caps one answer off the event loop. Rejects with the
   * errors the in-thread path throws (`response-too-deep`), an
   * OverloadedError when too many large answers are already waiting.
   */
  process(task: AnswerTask): Promise<ProcessedAnswer>;
}
