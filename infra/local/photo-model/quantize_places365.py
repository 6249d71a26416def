"""The converted Places365 model (convert_places365.py) -> 8-bit integer weights and activations.

usage: quantize_places365.py <in.onnx> <out.onnx> <repository root>

Static quantization (onnxruntime.quantization, QDQ format: int8 weights per output channel, uint8
activations): onnxruntime fuses each QuantizeLinear/DequantizeLinear pair around a Conv into one
integer convolution, ~4x faster than float32 on this CPU. The activation ranges come from running
the float model on calibration photos: the first 8 of each room of eval/rooms/ (in the repository)
on the calibration half of eval/samples.ts (the SHA-256 order of their names, every other one), so
the held-out photos play no part. Decoded with Pillow and squeezed to 224x224 like the image process
does. The measured ranges are rounded to 4 significant digits before they become scales, so float
rounding differences between CPUs in the calibration run do not change the file (photo-model.mjs
checks its sha256).
"""
import hashlib, importlib, json, os, sys, tempfile
import numpy as np
import onnx
from PIL import Image
from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType,
                                      quantize_static)

SIDE, PER_ROOM = 224, 8
source, target, root = sys.argv[1], sys.argv[2], sys.argv[3]
rooms = os.path.join(root, 'eval', 'rooms')
with open(os.path.join(rooms, 'manifest.json')) as f:
    photos = json.load(f)['photos']
by_room = {}
for photo in sorted(photos, key=lambda p: hashlib.sha256(p['file'].encode()).hexdigest()):
    by_room.setdefault(photo['expected'], []).append(photo['file'])
files = [name for room in sorted(by_room) for name in by_room[room][0::2][:PER_ROOM]]


def pixels(name):
    with Image.open(os.path.join(rooms, name)) as image:
        rgb = np.asarray(image.convert('RGB').resize((SIDE, SIDE), Image.BILINEAR), dtype=np.float32)
    return {'image': rgb.transpose(2, 0, 1)[None]}


class Photos(CalibrationDataReader):
    def __init__(self):
        self.left = iter(files)

    def get_next(self):
        name = next(self.left, None)
        return None if name is None else pixels(name)


def rounded(value):
    return np.asarray([float(f'{float(v):.4g}') for v in np.ravel(value)], dtype=value.dtype).reshape(value.shape)


def rounded_calibrator(*args, **kwargs):
    calibrator = create_calibrator(*args, **kwargs)
    compute = calibrator.compute_data

    def compute_rounded():
        ranges = compute()
        for data in ranges.data.values():
            data.lowest, data.highest = rounded(data.lowest), rounded(data.highest)
        return ranges

    calibrator.compute_data = compute_rounded
    return calibrator


quantize_module = importlib.import_module('onnxruntime.quantization.quantize')
create_calibrator = quantize_module.create_calibrator
quantize_module.create_calibrator = rounded_calibrator
with tempfile.TemporaryDirectory() as work:
    raw = os.path.join(work, 'quantized.onnx')
    quantize_static(source, raw, Photos(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    calibrate_method=CalibrationMethod.MinMax)
    model = onnx.load(raw)
model.ir_version = 8  # onnxruntime-node 1.30 refuses newer IR versions
model.producer_name, model.producer_version = 'rls-photo-model', 'int8-qdq-1'
onnx.checker.check_model(model)
onnx.save(model, target)
