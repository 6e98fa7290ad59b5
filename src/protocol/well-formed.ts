import type { z } from 'zod';
import { loneSurrogateAt } from '../text/surrogates.js';

/**
 * Refuses a string holding a lone UTF-16 surrogate, as pty_spawn refuses one in its command and pty_write in what it
 * types: it has no UTF-8 form, so a pattern holding one became U+FFFD and matched the replacement characters that
 * invalid bytes in the output render as, silently. The field is named by the issue's path.
 */
export function refuseLoneSurrogate(text: string, ctx: z.RefinementCtx): void {
  const at = loneSurrogateAt(text);
  if (at < 0) return;
  const unit = text.charCodeAt(at).toString(16).toUpperCase();
  ctx.addIssue({
    code: 'custom',
    input: text,
    message: `is not valid UTF-8: it holds a lone surrogate U+${unit} at position ${at} (counting characters from 0), half of a pair with no UTF-8 form on its own. Send the whole character, or a complete surrogate pair`,
  });
}
