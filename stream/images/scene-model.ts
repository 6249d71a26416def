// Runs the scene model (infra/local/photo-model.mjs: MIT CSAIL's Places365 WideResNet18, converted
// to ONNX with 8-bit integer weights and activations) with onnxruntime-node on the CPU, one thread.
// The graph takes RGB values 0..255 (the whole photo squeezed to 224×224) and normalises them
// itself; it answers the 365 Places365 scene probabilities (scene-tags.ts sums them into RESO
// ImageOf values) and the 512 pooled features its last layer reads (the head's inputs). Photos
// that arrive while one inference runs are classified together in one batch (up to MAX_BATCH):
// one call per batch instead of one per photo. Loaded once per image process (11.5 MB file).
import ort from 'onnxruntime-node';
import { MODEL_SIDE } from './decode.ts';

/** The model file this code expects (the first 12 hex digits of PHOTO_MODEL_SHA256). */
export const SCENE_MODEL_ID = 'places365-wideresnet18-int8@73c473cc62e6';
const CLASSES = 365;
export const SCENE_FEATURES = 512;
const MAX_BATCH = 8;

export interface SceneOutput {
  /** The 365 Places365 scene probabilities. */
  probabilities: Float32Array;
  /** The 512 globally pooled features the classification layer reads. */
  features: Float32Array;
}

export interface SceneModel {
  classify(rgb: Uint8Array): Promise<SceneOutput>;
  release(): Promise<void>;
}

/** `threads`: onnxruntime's intra-op threads; `maxBatch`: photos per inference at most (bench:photo-model). */
export async function loadSceneModel(
  path: string,
  { threads = 1, maxBatch = MAX_BATCH }: { threads?: number; maxBatch?: number } = {},
): Promise<SceneModel> {
  const session = await ort.InferenceSession.create(path, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const plane = MODEL_SIDE * MODEL_SIDE;
  let waiting: { rgb: Uint8Array; resolve: (p: SceneOutput) => void; reject: (e: Error) => void }[] = [];
  let running = false;

  async function drain(): Promise<void> {
    running = true;
    while (waiting.length) {
      const batch = waiting.slice(0, maxBatch);
      waiting = waiting.slice(batch.length);
      // Interleaved RGB (HWC) → planar (CHW), photo after photo, as the graph expects.
      const input = new Float32Array(batch.length * 3 * plane);
      batch.forEach(({ rgb }, n) => {
        const base = n * 3 * plane;
        for (let i = 0; i < plane; i++) {
          input[base + i] = rgb[i * 3]!;
          input[base + plane + i] = rgb[i * 3 + 1]!;
          input[base + 2 * plane + i] = rgb[i * 3 + 2]!;
        }
      });
      try {
        const output = await session.run({
          image: new ort.Tensor('float32', input, [batch.length, 3, MODEL_SIDE, MODEL_SIDE]),
        });
        const probabilities = output.probabilities!.data as Float32Array;
        const features = output.features!.data as Float32Array;
        batch.forEach(({ resolve }, n) =>
          resolve({
            probabilities: probabilities.slice(n * CLASSES, (n + 1) * CLASSES),
            features: features.slice(n * SCENE_FEATURES, (n + 1) * SCENE_FEATURES),
          }),
        );
      } catch (error) {
        for (const { reject } of batch) reject(error as Error);
      }
    }
    running = false;
  }

  return {
    classify(rgb) {
      return new Promise((resolve, reject) => {
        waiting.push({ rgb, resolve, reject });
        if (!running) void drain();
      });
    },
    release: () => session.release(),
  };
}
