// Runs the photo model (infra/local/photo-model.mjs: EfficientNet-Lite0, ImageNet) with
// onnxruntime-node on the CPU, one thread per inference. The model takes RGB values 0..255 and
// scales them itself; it answers the 1,000 ImageNet probabilities that room-tags.ts sums into RESO
// ImageOf values. Loaded once per worker (~19 MB file, ~40 MB resident).
import ort from 'onnxruntime-node';
import { MODEL_SIDE } from './decode.ts';

export interface PhotoModel {
  classify(rgb: Uint8Array): Promise<Float32Array>;
  release(): Promise<void>;
}

export async function loadPhotoModel(path: string): Promise<PhotoModel> {
  const session = await ort.InferenceSession.create(path, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const plane = MODEL_SIDE * MODEL_SIDE;
  return {
    async classify(rgb) {
      // Interleaved RGB (HWC) → planar (CHW), as the graph expects.
      const input = new Float32Array(3 * plane);
      for (let i = 0; i < plane; i++) {
        input[i] = rgb[i * 3]!;
        input[plane + i] = rgb[i * 3 + 1]!;
        input[2 * plane + i] = rgb[i * 3 + 2]!;
      }
      const output = await session.run({
        image: new ort.Tensor('float32', input, [1, 3, MODEL_SIDE, MODEL_SIDE]),
      });
      return output.probabilities!.data as Float32Array;
    },
    release: () => session.release(),
  };
}
