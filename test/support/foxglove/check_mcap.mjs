// Reads MCAP files with Foxglove's own libraries, as the Foxglove and Lichtblick viewers do,
// and prints one JSON line per file: what the viewers see of it (chunks, statistics, the
// timeline's span) and every message decoded, for the Python tests to compare with what
// they wrote.
//
//   node check_mcap.mjs FILE.mcap [FILE.mcap ...]
//
// A file the libraries refuse (bad CRC, bad record, undecodable message) gives
// {"file": ..., "error": "..."}; the exit status is 0 unless the arguments are wrong.
import { open } from "node:fs/promises";
import { crc32 } from "node:zlib";

import { parse } from "@foxglove/rosmsg";
import { MessageReader } from "@foxglove/rosmsg2-serialization";
import { McapIndexedReader, McapStreamReader } from "@mcap/core";
import { loadDecompressHandlers } from "@mcap/support";

// JSON cannot hold bigints, typed arrays or non-finite numbers: strings and plain arrays.
function plain(_key, value) {
  if (typeof value === "bigint") return value.toString();
  if (ArrayBuffer.isView(value)) return Array.from(value);
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return value;
}

async function readable(path) {
  const handle = await open(path, "r");
  const { size } = await handle.stat();
  return {
    handle,
    size: async () => BigInt(size),
    read: async (offset, length) => {
      const buffer = new Uint8Array(Number(length));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, Number(offset));
      if (bytesRead !== buffer.length) throw new Error(`short read at ${offset}`);
      return buffer;
    },
  };
}

// Every record in file order (chunk CRCs checked): how many messages each chunk holds.
async function streamChunks(path, decompressHandlers) {
  const handle = await open(path, "r");
  const data = new Uint8Array(await handle.readFile());
  await handle.close();
  const reader = new McapStreamReader({ includeChunks: true, decompressHandlers, validateCrcs: true });
  reader.append(data);
  const chunks = [];
  let header;
  let messages = 0;
  for (let record; (record = reader.nextRecord()); ) {
    if (record.type === "Header") header = record;
    if (record.type === "Chunk") chunks.push({ messages: 0, compression: record.compression });
    if (record.type === "Message") {
      messages += 1;
      if (chunks.length) chunks[chunks.length - 1].messages += 1;
    }
  }
  if (!reader.done()) throw new Error("the stream reader did not reach the footer");
  return { header, chunks, messages, data };
}

async function check(path, decompressHandlers) {
  const stream = await streamChunks(path, decompressHandlers);
  const source = await readable(path);
  try {
    const reader = await McapIndexedReader.Initialize({ readable: source, decompressHandlers }); // summary CRC
    const dataCrc = crc32(stream.data.subarray(0, Number(reader.dataEndOffset)));
    const readers = new Map();
    const messages = [];
    for await (const message of reader.readMessages({ validateCrcs: true })) {
      const channel = reader.channelsById.get(message.channelId);
      let decode = readers.get(channel.id);
      if (!decode) {
        const schema = reader.schemasById.get(channel.schemaId);
        if (channel.messageEncoding !== "cdr" || schema?.encoding !== "ros2msg") {
          throw new Error(`${channel.topic}: ${channel.messageEncoding} / ${schema?.encoding}, not cdr / ros2msg`);
        }
        const definitions = parse(new TextDecoder().decode(schema.data), { ros2: true });
        const messageReader = new MessageReader(definitions);
        decode = (data) => messageReader.readMessage(data);
        readers.set(channel.id, decode);
      }
      messages.push({
        topic: channel.topic,
        schema: reader.schemasById.get(channel.schemaId).name,
        log_time: message.logTime,
        publish_time: message.publishTime,
        sequence: message.sequence,
        message: decode(message.data),
      });
    }
    // Foxglove's timeline: the span of the chunk indexes (the statistics where there are none).
    const starts = reader.chunkIndexes.map((c) => c.messageStartTime);
    const ends = reader.chunkIndexes.map((c) => c.messageEndTime);
    const stats = reader.statistics;
    return {
      file: path,
      profile: reader.header.profile,
      library: reader.header.library,
      data_crc_ok: reader.dataSectionCrc === undefined ? null : reader.dataSectionCrc === dataCrc,
      chunks: reader.chunkIndexes.map((c, i) => ({
        start: c.messageStartTime,
        end: c.messageEndTime,
        compression: c.compression,
        channels: c.messageIndexOffsets.size,
        messages: stream.chunks[i]?.messages ?? null,
        compressed_size: c.compressedSize,
        uncompressed_size: c.uncompressedSize,
      })),
      stream_messages: stream.messages,
      statistics: stats && {
        message_count: stats.messageCount,
        start: stats.messageStartTime,
        end: stats.messageEndTime,
        channel_message_counts: Object.fromEntries(stats.channelMessageCounts),
      },
      timeline: starts.length
        ? { start: starts.reduce((a, b) => (b < a ? b : a)), end: ends.reduce((a, b) => (b > a ? b : a)) }
        : null,
      channels: Object.fromEntries(
        [...reader.channelsById.values()].map((c) => [c.topic, Object.fromEntries(c.metadata)]),
      ),
      messages,
    };
  } finally {
    await source.handle.close();
  }
}

const files = process.argv.slice(2);
if (!files.length) {
  process.stderr.write("usage: node check_mcap.mjs FILE.mcap [FILE.mcap ...]\n");
  process.exit(2);
}
const decompressHandlers = await loadDecompressHandlers();
for (const file of files) {
  let result;
  try {
    result = await check(file, decompressHandlers);
  } catch (error) {
    result = { file, error: String(error?.message ?? error) };
  }
  process.stdout.write(JSON.stringify(result, plain) + "\n");
}
