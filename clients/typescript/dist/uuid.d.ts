/** A random UUID v4: `crypto.randomUUID` where there is one (browsers, Node ≥ 19), else built here. */
export declare function uuid4(): string;
