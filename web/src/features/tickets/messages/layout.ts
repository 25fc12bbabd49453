/**
 * The message input's layout (docs/inbox.md "Layout"): the text field keeps at least
 * TEXT_MIN_WIDTH; the tools beside it (attach, camera, private note, sign, contact card) give way,
 * last first, to a "more" menu when the input is narrower than all of them need.
 */

/** The input's tools, most used first. Each has the test id `input-<key>`. */
export const INPUT_TOOLS = ['attach', 'camera', 'private', 'sign', 'send-contact'] as const;
export type InputTool = (typeof INPUT_TOOLS)[number];

/** An icon button and the row's gap. */
export const TOOL_WIDTH = 44;
export const TEXT_MIN_WIDTH = 240;
/** The input's padding, left and right. */
const INPUT_PADDING = 16;

/** The room for the tools in an input `width` px wide: what the emoji button, the send button and the text field leave. */
export function toolsRoom(width: number | null): number | null {
  if (width === null) return null;
  return Math.max(0, width - INPUT_PADDING - 2 * TOOL_WIDTH - TEXT_MIN_WIDTH);
}
