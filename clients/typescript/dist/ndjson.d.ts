/** JSON Lines from a streamed body, one parsed line at a time, never the whole body in memory. */
export declare function jsonLines<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T>;
