export declare const REQUIRED_MAJOR: number;
/** True when this process is on Node 24 or later and goes on; false when the command now runs under the project's Node instead. */
export declare function onNode24(): boolean;
