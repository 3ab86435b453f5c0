// Where an answer's usage is read. A vendor that speaks its own format (a dialect, or an operation naming its own
// `usage`) is read in that format, from its own answer, whatever the client is translated to: every class it
// reports (cache writes by lifetime, per-modality counts) reaches the bill, not only what the unified format can
// carry. Any other answer is in the operation's unified format (routes.yaml `usage`).
import type { CompiledOperation, Runtime } from './runtime.js';
import { compileUsagePaths, type CompiledUsagePaths } from '../transform/usage-paths.js';

/** The chat completions shape: what an operation routes.yaml names no usage for reads. */
const chatShape = compileUsagePaths({
  at: ['usage'], prompt_tokens: ['prompt_tokens'], completion_tokens: ['completion_tokens'],
  details: { cached: ['prompt_tokens_details.cached_tokens'], reasoning: ['completion_tokens_details.reasoning_tokens'] },
});

/** The paths of an operation's unified answers. */
export const unifiedUsage = (runtime: Runtime, operation: string): CompiledUsagePaths =>
  runtime.usage.get(operation) ?? runtime.usage.get('chat_completions') ?? chatShape;

/** The paths of the vendor's own answer, when it is not (yet) the unified one's: read before any transform. */
export const vendorUsage = (op: CompiledOperation): CompiledUsagePaths | undefined => op.usage;
