import { decodeBody } from '../forward/response-body.js';
import { capResponse } from '../tokens/cap.js';
import type { AnswerTask, ProcessedAnswer } from './large-answers.js';

/** The privacy filter, or anything shaped like it (the pipeline's `ResponseFilter`). */
export interface AnswerFilter {
  filter(toolName: string, value: unknown): { value: unknown };
}

/**
 * The in-thread path's steps for one answer, in its order: decode (with the
 * nesting check), privacy filter, the text for the cache, cap. What runs in
 * the worker thread; kept free of anything but the steps, so its result is
 * the in-thread path's for the same input.
 */
export function processAnswer(task: AnswerTask, privacy: AnswerFilter | undefined): ProcessedAnswer {
  const { source } = task;
  if (source.kind === 'cached') return capResponse(JSON.parse(source.text), task.maxTokens);
  const bytes = Buffer.from(source.bytes.buffer, source.bytes.byteOffset, source.bytes.byteLength);
  const decoded = decodeBody(bytes, source.contentType);
  const value = privacy ? privacy.filter(task.toolName, decoded).value : decoded;
  if (!task.wantCacheText) return capResponse(value, task.maxTokens);
  // Serialized once: the cache stores it and the cap starts from it.
  const cacheText = JSON.stringify(value) ?? 'null';
  return { ...capResponse(value, task.maxTokens, cacheText), cacheText };
}
