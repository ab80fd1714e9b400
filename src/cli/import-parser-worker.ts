// The thread that parses an import's lines (import-parser-thread.ts), answering each chunk in turn.
import { parentPort } from 'node:worker_threads'
import { LineParser } from './import-lines.js'
import type { ToParserThread } from './import-parser-thread.js'

const parser = new LineParser()
parentPort!.on('message', (message: ToParserThread) => {
  parentPort!.postMessage(message.chunk === undefined ? parser.end() : parser.push(message.chunk))
})
