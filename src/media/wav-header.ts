// The 44-byte header of a WAV file whose length is not known when it starts (raw PCM streamed as it comes): the RIFF
// and data sizes are 0xFFFFFFFF, which players and decoders read as "until the end of the stream".
/** Raw PCM's layout: samples a second, channels, bits a sample. */
export interface PcmLayout { rate: number; channels: number; bits: number }

export function wavStreamHeader(p: PcmLayout): Buffer {
  const h = Buffer.alloc(44);
  const blockAlign = p.channels * (p.bits / 8);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(0xffffffff, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(p.channels, 22);
  h.writeUInt32LE(p.rate, 24);
  h.writeUInt32LE(p.rate * blockAlign, 28);
  h.writeUInt16LE(blockAlign, 32);
  h.writeUInt16LE(p.bits, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(0xffffffff, 40);
  return h;
}
