// Ogg Opus as OpenAI's `opus` answers are: OpusHead (mono, pre-skip 312, input rate 24 kHz) on a first page flagged
// BOS, OpusTags on the second, then audio pages, the last flagged EOS with the exact end granule. Each packet is the
// 20 ms CELT silence libopus emits for digital silence (TOC 0xD8: CELT super-wideband 20 ms, mono, one frame; then
// FF FE, the silence flag). Every page carries its Ogg CRC-32.
import { oggCrc32 } from './crc.js';
import type { Encoded } from './encoded.js';

const SILENT_PACKET = Buffer.from([0xd8, 0xff, 0xfe]);
const PACKET_SAMPLES_48K = 960;
const PRE_SKIP = 312;
const INPUT_RATE = 24000;
const PACKETS_PER_PAGE = 5; // 100 ms a page, one streaming chunk each
const SERIAL = 0x5357_5944; // fixed so the same call gives the same bytes

function page(flags: number, granule: bigint, sequence: number, packets: Buffer[]): Buffer {
  const lacing = packets.flatMap((p) => [...Array(Math.floor(p.length / 255)).fill(255), p.length % 255]);
  const head = Buffer.alloc(27 + lacing.length);
  head.write('OggS', 0, 'ascii');
  head[4] = 0; // version
  head[5] = flags;
  head.writeBigUInt64LE(granule, 6);
  head.writeUInt32LE(SERIAL, 14);
  head.writeUInt32LE(sequence, 18);
  head[26] = lacing.length;
  Buffer.from(lacing).copy(head, 27);
  const out = Buffer.concat([head, ...packets]);
  out.writeUInt32LE(oggCrc32(out), 22); // computed with the CRC field still zero
  return out;
}

function opusHead(): Buffer {
  const b = Buffer.alloc(19);
  b.write('OpusHead', 0, 'ascii');
  b[8] = 1; // version
  b[9] = 1; // channels
  b.writeUInt16LE(PRE_SKIP, 10);
  b.writeUInt32LE(INPUT_RATE, 12);
  b.writeInt16LE(0, 16); // output gain
  b[18] = 0; // mapping family
  return b;
}

function opusTags(): Buffer {
  const vendor = Buffer.from('switchyard-simulator', 'utf8');
  const b = Buffer.alloc(8 + 4 + vendor.length + 4);
  b.write('OpusTags', 0, 'ascii');
  b.writeUInt32LE(vendor.length, 8);
  vendor.copy(b, 12);
  b.writeUInt32LE(0, 12 + vendor.length);
  return b;
}

export function encodeOpus(seconds: number): Encoded {
  const samples = Math.max(1, Math.round(seconds * 48000));
  const packets = Math.ceil((samples + PRE_SKIP) / PACKET_SAMPLES_48K);
  const head = Buffer.concat([page(0x02, 0n, 0, [opusHead()]), page(0x00, 0n, 1, [opusTags()])]);
  const frames: Buffer[] = [];
  for (let done = 0, seq = 2; done < packets; seq++) {
    const n = Math.min(PACKETS_PER_PAGE, packets - done);
    done += n;
    const last = done === packets;
    // The last page's granule is the true end (pre-skip + samples), which trims the padding of the final packet.
    const granule = BigInt(last ? PRE_SKIP + samples : done * PACKET_SAMPLES_48K);
    frames.push(page(last ? 0x04 : 0x00, granule, seq, Array(n).fill(SILENT_PACKET)));
  }
  return { head, frames, frameMs: PACKETS_PER_PAGE * 20 };
}
