// OpenAI's audio endpoints for server.ts: speech (text to audio), transcriptions and translations (audio to text).
import type { Route } from '../http.js';
import { openaiSpeech } from './speech.js';
import { openaiTranscriptions, openaiTranslations } from './transcriptions.js';

export const audioRoutes: Route[] = [openaiSpeech, openaiTranscriptions, openaiTranslations];

export { type AudioRequestRecord, audioLogOf } from './records.js';
export { AUDIO_CONTENT_TYPES, SPEECH_FORMATS, type SpeechFormat, audioBytes, mp3Bytes, pcmBytes, wavBytes } from './formats.js';
export { type Probe, probe } from './probe.js';
