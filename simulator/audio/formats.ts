// The audio files the simulator answers with and the helpers gateway tests use to make real uploads. Every format is a
// real file of its kind at 24 kHz mono (OpenAI's TTS output rate): pcm/wav/flac carry a quiet 440 Hz tone, mp3/aac/opus
// are silent frames (valid, decodable, but a tone needs a real encoder). Content types are the ones OpenAI sends.
import { encodeAac } from './aac.js';
import { type Encoded, chunked, joined } from './encoded.js';
import { encodeFlac } from './flac.js';
import { encodeMp3 } from './mp3.js';
import { encodeOpus } from './ogg-opus.js';
import { SPEECH_RATE } from './tone.js';
import { encodePcm, encodeWav } from './wav.js';

export type SpeechFormat = 'mp3' | 'opus' | 'aac' | 'flac' | 'wav' | 'pcm';
export const SPEECH_FORMATS: SpeechFormat[] = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'];

/** Content-Type per format, as api.openai.com labels its speech answers. */
export const AUDIO_CONTENT_TYPES: Record<SpeechFormat, string> = {
  mp3: 'audio/mpeg', opus: 'audio/opus', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm',
};

/** `streamed` WAVs have 0xFFFFFFFF size fields, as OpenAI streams them; uploads want exact sizes. */
export function encodeAudio(format: SpeechFormat, seconds: number, opts: { streamed?: boolean } = {}): Encoded {
  switch (format) {
    case 'mp3': return encodeMp3(seconds);
    case 'opus': return encodeOpus(seconds);
    case 'aac': return encodeAac(seconds);
    case 'flac': return encodeFlac(seconds);
    case 'wav': return encodeWav(seconds, SPEECH_RATE, opts.streamed ?? false);
    case 'pcm': return encodePcm(seconds);
  }
}

/** A whole file of `format` lasting `seconds` (WAV with exact sizes). */
export function audioBytes(format: SpeechFormat, seconds: number): Buffer {
  return joined(encodeAudio(format, seconds));
}

/** A WAV upload: 16-bit mono PCM of the tone at `rate` (default 24 kHz), exact header sizes. */
export function wavBytes(seconds: number, rate = SPEECH_RATE): Buffer {
  return joined(encodeWav(seconds, rate, false));
}

export function mp3Bytes(seconds: number): Buffer {
  return joined(encodeMp3(seconds));
}

/** The answer of a speech request cut into ~100 ms chunks on frame boundaries (streamed WAV sizes, as OpenAI). */
export function speechChunks(format: SpeechFormat, seconds: number): Buffer[] {
  return chunked(encodeAudio(format, seconds, { streamed: true }));
}

export { pcmBytes, SPEECH_RATE } from './tone.js';
