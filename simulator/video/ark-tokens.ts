// The tokens Ark bills a Seedance video by, reported as usage.completion_tokens = total_tokens on the finished task:
// width × height × frames / 1024 at 24 fps, with the output's real frame size for its resolution and ratio, plus the
// reference video's seconds. Figures as researched in the notes of 2026-11-27 on Ark, Wan and MiniMax (Volcengine price page 1544106).

type Json = Record<string, unknown>;

const RATIOS = ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'];
/** Frame sizes per resolution, in RATIOS order. Seedance 1.0 (pro, pro-fast, lite) renders its own sizes. */
const SIZES_1_0: Record<string, [number, number][]> = {
  '480p': [[864, 480], [736, 544], [640, 640], [544, 736], [480, 864], [960, 416]],
  '720p': [[1248, 704], [1120, 832], [960, 960], [832, 1120], [704, 1248], [1504, 640]],
  // 21:9 at 1080p (2176×928) is not confirmed, as researched.
  '1080p': [[1920, 1088], [1664, 1248], [1440, 1440], [1248, 1664], [1088, 1920], [2176, 928]],
};
/** Seedance 1.5 pro, 2.0 and 2.0 fast. */
const SIZES_LATER: Record<string, [number, number][]> = {
  '480p': [[864, 496], [752, 560], [640, 640], [560, 752], [496, 864], [992, 432]],
  '720p': [[1280, 720], [1112, 834], [960, 960], [834, 1112], [720, 1280], [1470, 630]],
  '1080p': [[1920, 1080], [1664, 1248], [1440, 1440], [1248, 1664], [1080, 1920], [2206, 946]],
};
/** Seconds of a reference video whose item does not say (the simulator cannot probe the file). */
export const REFERENCE_VIDEO_SECONDS = 5;

/** 1.x (1.0 and 1.5) render 24·s frames, 2.x one more; 1.0 has its own frame sizes. */
const isSeedance1 = (model: string) => /seedance-1-/.test(model);
const isSeedance10 = (model: string) => /seedance-1-0-/.test(model);

/** The resolution rendered: the request's, else the model's default (1080p for 1.0 pro and pro-fast, 720p for the rest). */
export function arkResolution(model: string, body: Json): string {
  if (typeof body.resolution === 'string') return body.resolution;
  return /seedance-1-0-pro/.test(model) ? '1080p' : '720p';
}

/** The output duration: the request's, else 5 s (also for -1, "the model chooses"). */
export function arkDuration(body: Json): number {
  return Number.isInteger(body.duration) && (body.duration as number) > 0 ? (body.duration as number) : 5;
}

/** Width × height; `adaptive` (follow the image) is taken as 16:9, and 4k (no table) as twice the 1080p sides. */
export function arkFrameSize(model: string, resolution: string, ratio: string): [number, number] {
  const table = isSeedance10(model) ? SIZES_1_0 : SIZES_LATER;
  const index = Math.max(0, RATIOS.indexOf(ratio));
  if (resolution === '4k') return table['1080p'][index].map((v) => v * 2) as [number, number];
  return (table[resolution] ?? table['720p'])[index];
}

/** Seconds of every reference video in content[]: the item's `duration` (or its video_url's), else 5 s each. */
export function referenceSeconds(content: unknown): number {
  const items = Array.isArray(content) ? (content as Json[]) : [];
  return items.filter((c) => c?.type === 'video_url').reduce((n, c) => {
    const inner = typeof c.video_url === 'object' && c.video_url !== null ? (c.video_url as Json).duration : undefined;
    const seconds = [c.duration, inner].find((v) => typeof v === 'number' && v > 0) as number | undefined;
    return n + (seconds ?? REFERENCE_VIDEO_SECONDS);
  }, 0);
}

/**
 * Billed tokens. Frames are 24 per second of output and of reference video; 2.x tasks render one frame more (24·s + 1:
 * Ark reported 87 300 for 720p 4 s, 1280·720·97/1024, and 173 700 with a 4 s reference video, 193 frames), 1.x tasks
 * 24·s (the reseller tables and Volcengine's own 5 s examples). A request's `frames` replaces 24·s for the output. The
 * note gives no rounding rule; sizes whose area is not a multiple of 1024 are rounded to the nearest token. Not
 * simulated: the minimum Ark bills 2.0 tasks with an input video (a published table of its own).
 */
export function arkTokens(model: string, body: Json): number {
  const [width, height] = arkFrameSize(model, arkResolution(model, body), typeof body.ratio === 'string' ? body.ratio : '16:9');
  const output = Number.isInteger(body.frames) && (body.frames as number) > 0 ? (body.frames as number) : 24 * arkDuration(body) + (isSeedance1(model) ? 0 : 1);
  const frames = output + 24 * referenceSeconds(body.content);
  return Math.round((width * height * frames) / 1024);
}
