// The content of a transcription: deterministic text ("Transcribed 3 seconds of audio."), whisper's segments and word
// timings, diarized segments, usage in OpenAI's two shapes, and the text renderings (text, srt, vtt) as OpenAI lays
// them out: text ends with a newline, srt cues are "1\n00:00:00,000 --> 00:00:02,000\n…\n\n" plus a final newline,
// vtt starts with "WEBVTT\n\n".
import { STT_AUDIO_TOKENS_PER_SECOND, type SttFamily } from './stt-models.js';

export interface Transcript {
  text: string;
  seconds: number;
  language: string;
}

const LANGUAGES: Record<string, string> = {
  en: 'english', fr: 'french', de: 'german', es: 'spanish', it: 'italian', pt: 'portuguese', nl: 'dutch', ja: 'japanese',
  zh: 'chinese', ko: 'korean', ru: 'russian', pl: 'polish', sv: 'swedish', tr: 'turkish', ar: 'arabic', hi: 'hindi',
};

export const languageName = (code: string | undefined): string => (code ? (LANGUAGES[code] ?? code) : 'english');

/** Seconds as people write them: 3, 2.5, 1.75. */
export const secondsText = (s: number): string => String(Math.round(s * 100) / 100);

export function defaultText(seconds: number, translate: boolean): string {
  return `${translate ? 'Translated' : 'Transcribed'} ${secondsText(seconds)} ${secondsText(seconds) === '1' ? 'second' : 'seconds'} of audio.`;
}

export const wordsOf = (s: string): string[] => s.split(/\s+/).filter(Boolean);

/** Float32 the way whisper reports times and temperatures (1.7 → 1.7000000476837158). */
const f32 = (n: number): number => Math.fround(n);
const round2 = (n: number): number => Math.round(n * 100) / 100;

/** Whisper cuts audio in 30 s windows: one segment per window, the words shared out evenly. */
export function whisperSegments(t: Transcript, temperature: number) {
  const words = wordsOf(t.text);
  const count = Math.max(1, Math.ceil(t.seconds / 30));
  const per = Math.ceil(words.length / count);
  return Array.from({ length: count }, (_, i) => {
    const start = i * 30;
    const end = Math.min(t.seconds, (i + 1) * 30);
    const text = words.slice(i * per, (i + 1) * per).join(' ');
    return {
      id: i, seek: start * 100, start: f32(start), end: f32(round2(end)), text: ` ${text}`,
      tokens: [50364, ...wordsOf(text).map((_, k) => 1000 + k), 50364 + Math.round((end - start) / 0.02)],
      temperature: f32(temperature), avg_logprob: -0.25, compression_ratio: 0.8285714387893677, no_speech_prob: 0.002,
    };
  });
}

/** Words without punctuation, spread evenly over the audio. */
export function whisperWords(t: Transcript) {
  const words = wordsOf(t.text).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')).filter(Boolean);
  const step = t.seconds / Math.max(1, words.length);
  return words.map((word, i) => ({ word, start: f32(round2(i * step)), end: f32(round2((i + 1) * step)) }));
}

/** One segment per sentence, speakers alternating A, B (or the known speaker names, in order). */
export function diarizedSegments(t: Transcript, knownNames: string[]) {
  const sentences = t.text.match(/[^.!?]+[.!?]*/g)?.map((s) => s.trim()).filter(Boolean) ?? [t.text];
  const step = t.seconds / sentences.length;
  const labels = knownNames.length ? knownNames : ['A', 'B'];
  return sentences.map((text, i) => ({
    type: 'transcript.text.segment', text: ` ${text}`, speaker: labels[i % labels.length],
    start: round2(i * step), end: round2((i + 1) * step), id: `seg_${i}`,
  }));
}

/** whisper-1: seconds rounded up (1.7 s of audio bills 2). The others: tokens, audio at 10 a second. */
export function sttUsage(family: SttFamily, t: Transcript, prompt: string | undefined) {
  if (family === 'whisper') return { type: 'duration', seconds: Math.ceil(t.seconds - 1e-9) };
  const text = wordsOf(prompt ?? '').length;
  const audio = Math.ceil(t.seconds * STT_AUDIO_TOKENS_PER_SECOND - 1e-9);
  const output = wordsOf(t.text).length;
  return { type: 'tokens', total_tokens: text + audio + output, input_tokens: text + audio, input_token_details: { text_tokens: text, audio_tokens: audio }, output_tokens: output };
}

function clock(seconds: number, sep: ',' | '.'): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3600000))}:${pad(Math.floor(ms / 60000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${sep}${pad(ms % 1000, 3)}`;
}

type Cue = { start: number; end: number; text: string };

export function srt(cues: Cue[]): string {
  return `${cues.map((c, i) => `${i + 1}\n${clock(c.start, ',')} --> ${clock(c.end, ',')}\n${c.text.trim()}\n\n`).join('')}\n`;
}

export function vtt(cues: Cue[]): string {
  return `WEBVTT\n\n${cues.map((c) => `${clock(c.start, '.')} --> ${clock(c.end, '.')}\n${c.text.trim()}\n\n`).join('')}`;
}

/** Made-up but well-formed logprobs for `include[]=logprobs`: one entry per word, with its UTF-8 bytes. */
export function logprobsOf(pieces: string[]) {
  return pieces.map((token, i) => ({ token, logprob: -0.0001 * (i + 1), bytes: [...Buffer.from(token, 'utf8')] }));
}

/** The stream's text deltas: one word each, every word after the first with its leading space. */
export const deltasOf = (text: string): string[] => wordsOf(text).map((w, i) => (i === 0 ? w : ` ${w}`));
