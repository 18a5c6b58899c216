"""Known differences of the OpInfo walk (tests/test_opinfo.py): entry -> {"dtype:sample:fwd|bwd": reason}.

Each row is a sample of PyTorch's op_db where tinytorch's result differs from PyTorch's; the reason says
what differs. The list only shrinks: test_opinfo fails for a listed row that matches now. Regenerate
with ``python tests/_opinfo_update.py`` after fixing ops."""

KNOWN = {'addmv': {'int64:1:fwd': 'values differ: Tensor-likes are not equal!',
           'int64:3:fwd': 'values differ: Tensor-likes are not equal!',
           'int64:5:fwd': 'values differ: Tensor-likes are not equal!'},
 'all': {'bool:11:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'bool:12:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'bool:17:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'bool:18:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'bool:19:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'bool:3:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'bool:7:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float32:11:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float32:12:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float32:17:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float32:18:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float32:19:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float32:3:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float32:7:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float64:11:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float64:12:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float64:17:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float64:18:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float64:19:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float64:3:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float64:7:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'int64:11:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'int64:12:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'int64:17:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'int64:18:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'int64:19:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'int64:3:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'int64:7:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'"},
 'aminmax': {'bool:6:fwd': 'raises RuntimeError: aminmax(): cannot compute aminmax over an empty dimension as the '
                           'operation has no identity.',
             'float32:6:fwd': 'raises RuntimeError: aminmax(): cannot compute aminmax over an empty dimension as the '
                              'operation has no identity.',
             'float64:6:fwd': 'raises RuntimeError: aminmax(): cannot compute aminmax over an empty dimension as the '
                              'operation has no identity.',
             'int64:6:fwd': 'raises RuntimeError: aminmax(): cannot compute aminmax over an empty dimension as the '
                            'operation has no identity.'},
 'any': {'bool:11:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'bool:12:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'bool:17:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'bool:18:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'bool:19:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'bool:3:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'bool:7:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float32:11:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float32:12:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float32:17:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float32:18:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float32:19:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float32:3:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float32:7:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float64:11:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float64:12:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float64:17:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float64:18:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float64:19:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float64:3:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'float64:7:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'int64:11:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'int64:12:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'int64:17:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'int64:18:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'int64:19:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'int64:3:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'",
         'int64:7:fwd': "raises TypeError: '<=' not supported between instances of 'int' and 'tuple'"},
 'arange': {'int64:10:fwd': "values differ: The values for attribute 'shape' do not match: torch.Size([3]) != "
                            'torch.Size([2]).',
            'int64:11:fwd': "values differ: The values for attribute 'shape' do not match: torch.Size([3]) != "
                            'torch.Size([2]).',
            'int64:14:fwd': "values differ: The values for attribute 'shape' do not match: torch.Size([2]) != "
                            'torch.Size([1]).',
            'int64:15:fwd': "values differ: The values for attribute 'shape' do not match: torch.Size([5]) != "
                            'torch.Size([4]).',
            'int64:18:fwd': 'values differ: Tensor-likes are not equal!',
            'int64:22:fwd': "values differ: The values for attribute 'shape' do not match: torch.Size([4]) != "
                            'torch.Size([3]).',
            'int64:23:fwd': "values differ: The values for attribute 'shape' do not match: torch.Size([4]) != "
                            'torch.Size([3]).'},
 'argsort': {'bool:0:fwd': 'values differ: Tensor-likes are not equal!'},
 'baddbmm': {'int64:2:fwd': 'values differ: Tensor-likes are not equal!',
             'int64:3:fwd': 'values differ: Tensor-likes are not equal!',
             'int64:5:fwd': 'values differ: Tensor-likes are not equal!'},
 'bernoulli': {'float32:0:bwd': '0 differentiable outputs, PyTorch 1',
               'float32:1:bwd': '0 differentiable outputs, PyTorch 1',
               'float32:2:bwd': '0 differentiable outputs, PyTorch 1',
               'float32:3:fwd': 'values differ: Tensor-likes are not close!',
               'float64:0:fwd': 'values differ: Tensor-likes are not close!',
               'float64:1:fwd': 'values differ: Scalars are not close!',
               'float64:2:bwd': '0 differentiable outputs, PyTorch 1',
               'float64:3:fwd': 'values differ: Tensor-likes are not close!'},
 'bool': {'bool:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'bool:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'bool:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'float32:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float32:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float32:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'int64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
          'int64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
          'int64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'"},
 'byte': {'bool:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'bool:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'bool:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'float32:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float32:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float32:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'int64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
          'int64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
          'int64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'"},
 'cat': {'bool:5:fwd': 'raises IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)',
         'float32:5:fwd': 'raises IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)',
         'float64:5:fwd': 'raises IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)',
         'int64:5:fwd': 'raises IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)'},
 'cdist': {'float32:105:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float32:106:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float32:107:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float32:108:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float32:10:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([4, 5]).',
           'float32:110:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float32:111:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float32:11:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([1, 3, 5]).',
           'float32:121:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float32:122:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float32:123:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float32:124:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float32:126:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float32:127:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float32:12:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([1, 4, 5]).',
           'float32:137:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float32:138:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float32:139:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float32:140:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float32:142:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float32:143:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float32:14:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                             '2]) != torch.Size([1, 2, 2]).',
           'float32:153:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float32:154:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float32:155:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float32:156:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float32:158:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float32:159:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float32:15:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                             '2]) != torch.Size([1, 1, 2]).',
           'float32:169:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float32:170:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float32:171:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float32:172:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float32:174:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float32:175:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float32:185:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float32:186:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float32:187:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float32:188:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float32:190:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float32:191:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float32:201:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float32:202:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float32:203:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float32:204:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float32:206:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float32:207:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float32:217:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float32:218:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float32:219:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float32:220:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float32:222:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float32:223:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float32:233:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float32:234:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float32:235:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float32:236:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float32:238:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float32:239:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float32:249:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float32:250:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float32:251:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float32:252:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float32:254:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float32:255:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float32:25:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([3, 5]).',
           'float32:26:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([4, 5]).',
           'float32:27:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([1, 3, 5]).',
           'float32:28:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([1, 4, 5]).',
           'float32:30:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                             '2]) != torch.Size([1, 2, 2]).',
           'float32:31:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                             '2]) != torch.Size([1, 1, 2]).',
           'float32:32:bwd': 'gradients differ: Tensor-likes are not close!',
           'float32:41:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([3, 5]).',
           'float32:42:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([4, 5]).',
           'float32:43:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([1, 3, 5]).',
           'float32:44:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([1, 4, 5]).',
           'float32:46:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                             '2]) != torch.Size([1, 2, 2]).',
           'float32:47:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                             '2]) != torch.Size([1, 1, 2]).',
           'float32:57:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([3, 5]).',
           'float32:58:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([4, 5]).',
           'float32:59:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([1, 3, 5]).',
           'float32:60:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([1, 4, 5]).',
           'float32:62:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                             '2]) != torch.Size([1, 2, 2]).',
           'float32:63:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                             '2]) != torch.Size([1, 1, 2]).',
           'float32:73:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([3, 5]).',
           'float32:74:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([4, 5]).',
           'float32:75:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([1, 3, 5]).',
           'float32:76:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([1, 4, 5]).',
           'float32:78:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                             '2]) != torch.Size([1, 2, 2]).',
           'float32:79:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                             '2]) != torch.Size([1, 1, 2]).',
           'float32:89:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([3, 5]).',
           'float32:90:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([4, 5]).',
           'float32:91:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([1, 3, 5]).',
           'float32:92:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([1, 4, 5]).',
           'float32:94:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                             '2]) != torch.Size([1, 2, 2]).',
           'float32:95:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                             '2]) != torch.Size([1, 1, 2]).',
           'float32:9:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                            '!= torch.Size([3, 5]).',
           'float64:105:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float64:106:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float64:107:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float64:108:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float64:10:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([4, 5]).',
           'float64:110:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float64:111:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float64:11:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([1, 3, 5]).',
           'float64:121:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float64:122:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float64:123:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float64:124:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float64:126:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float64:127:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float64:12:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([1, 4, 5]).',
           'float64:137:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float64:138:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float64:139:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float64:140:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float64:142:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float64:143:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float64:14:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                             '2]) != torch.Size([1, 2, 2]).',
           'float64:153:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float64:154:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float64:155:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float64:156:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float64:158:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float64:159:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float64:15:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                             '2]) != torch.Size([1, 1, 2]).',
           'float64:169:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float64:170:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float64:171:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float64:172:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float64:174:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float64:175:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float64:185:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float64:186:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float64:187:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float64:188:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float64:190:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float64:191:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float64:201:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float64:202:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float64:203:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float64:204:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float64:206:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float64:207:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float64:217:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float64:218:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float64:219:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float64:220:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float64:222:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float64:223:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float64:233:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float64:234:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float64:235:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float64:236:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float64:238:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float64:239:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float64:249:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([3, 5]).',
           'float64:250:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([4, 5]).',
           'float64:251:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, "
                              '5]) != torch.Size([1, 3, 5]).',
           'float64:252:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, "
                              '5]) != torch.Size([1, 4, 5]).',
           'float64:254:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                              '2]) != torch.Size([1, 2, 2]).',
           'float64:255:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                              '2]) != torch.Size([1, 1, 2]).',
           'float64:25:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([3, 5]).',
           'float64:26:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([4, 5]).',
           'float64:27:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([1, 3, 5]).',
           'float64:28:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([1, 4, 5]).',
           'float64:30:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                             '2]) != torch.Size([1, 2, 2]).',
           'float64:31:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                             '2]) != torch.Size([1, 1, 2]).',
           'float64:41:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([3, 5]).',
           'float64:42:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([4, 5]).',
           'float64:43:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([1, 3, 5]).',
           'float64:44:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([1, 4, 5]).',
           'float64:46:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                             '2]) != torch.Size([1, 2, 2]).',
           'float64:47:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                             '2]) != torch.Size([1, 1, 2]).',
           'float64:57:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([3, 5]).',
           'float64:58:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([4, 5]).',
           'float64:59:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([1, 3, 5]).',
           'float64:60:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([1, 4, 5]).',
           'float64:62:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                             '2]) != torch.Size([1, 2, 2]).',
           'float64:63:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                             '2]) != torch.Size([1, 1, 2]).',
           'float64:73:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([3, 5]).',
           'float64:74:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([4, 5]).',
           'float64:75:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([1, 3, 5]).',
           'float64:76:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([1, 4, 5]).',
           'float64:78:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                             '2]) != torch.Size([1, 2, 2]).',
           'float64:79:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                             '2]) != torch.Size([1, 1, 2]).',
           'float64:89:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([3, 5]).',
           'float64:90:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([4, 5]).',
           'float64:91:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                             '!= torch.Size([1, 3, 5]).',
           'float64:92:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 4, 5]) "
                             '!= torch.Size([1, 4, 5]).',
           'float64:94:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 2, "
                             '2]) != torch.Size([1, 2, 2]).',
           'float64:95:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([2, 1, 1, "
                             '2]) != torch.Size([1, 1, 2]).',
           'float64:9:bwd': "gradients differ: The values for attribute 'shape' do not match: torch.Size([0, 3, 5]) "
                            '!= torch.Size([3, 5]).'},
 'char': {'bool:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'bool:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'bool:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'float32:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float32:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float32:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'int64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
          'int64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
          'int64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'"},
 'digamma': {'float32:0:bwd': 'gradients differ: Tensor-likes are not close!'},
 'double': {'bool:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'",
            'bool:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'",
            'bool:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'",
            'float32:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                             "'memory_format'",
            'float32:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                             "'memory_format'",
            'float32:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                             "'memory_format'",
            'float64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                             "'memory_format'",
            'float64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                             "'memory_format'",
            'float64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                             "'memory_format'",
            'int64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
            'int64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
            'int64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'"},
 'exponential': {'float32:0:fwd': 'values differ: Tensor-likes are not close!',
                 'float32:1:fwd': 'values differ: Tensor-likes are not close!',
                 'float32:2:fwd': 'values differ: Tensor-likes are not close!',
                 'float64:0:fwd': 'values differ: Tensor-likes are not close!',
                 'float64:1:fwd': 'values differ: Tensor-likes are not close!',
                 'float64:2:fwd': 'values differ: Tensor-likes are not close!'},
 'flip': {'bool:0:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'bool:1:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'bool:2:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'bool:3:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'bool:4:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'bool:5:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'bool:6:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'bool:7:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'bool:8:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'bool:9:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float32:0:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float32:1:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float32:2:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float32:3:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float32:4:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float32:5:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float32:6:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float32:7:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float32:8:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float32:9:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float64:0:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float64:1:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float64:2:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float64:3:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float64:4:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float64:5:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float64:6:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float64:7:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float64:8:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'float64:9:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'int64:0:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'int64:1:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'int64:2:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'int64:3:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'int64:4:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'int64:5:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'int64:6:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'int64:7:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'int64:8:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'",
          'int64:9:fwd': "raises TypeError: flip() got an unexpected keyword argument 'dims'"},
 'float': {'bool:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
           'bool:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
           'bool:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
           'float32:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                            "'memory_format'",
           'float32:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                            "'memory_format'",
           'float32:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                            "'memory_format'",
           'float64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                            "'memory_format'",
           'float64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                            "'memory_format'",
           'float64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                            "'memory_format'",
           'int64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'",
           'int64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'",
           'int64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'"},
 'gather': {'bool:3:fwd': 'raises RuntimeError: gather(): Expected dtype int32/int64 for index',
            'bool:4:fwd': 'raises RuntimeError: gather(): Expected dtype int32/int64 for index',
            'bool:5:fwd': 'raises IndexError: too many indices for array: array is 0-dimensional, but 1 were indexed',
            'float32:3:fwd': 'raises RuntimeError: gather(): Expected dtype int32/int64 for index',
            'float32:4:fwd': 'raises RuntimeError: gather(): Expected dtype int32/int64 for index',
            'float32:5:fwd': 'raises IndexError: too many indices for array: array is 0-dimensional, but 1 were '
                             'indexed',
            'float64:3:fwd': 'raises RuntimeError: gather(): Expected dtype int32/int64 for index',
            'float64:4:fwd': 'raises RuntimeError: gather(): Expected dtype int32/int64 for index',
            'float64:5:fwd': 'raises IndexError: too many indices for array: array is 0-dimensional, but 1 were '
                             'indexed',
            'int64:3:fwd': 'raises RuntimeError: gather(): Expected dtype int32/int64 for index',
            'int64:4:fwd': 'raises RuntimeError: gather(): Expected dtype int32/int64 for index',
            'int64:5:fwd': 'raises IndexError: too many indices for array: array is 0-dimensional, but 1 were '
                           'indexed'},
 'geometric': {'float32:0:fwd': 'values differ: Tensor-likes are not close!',
               'float32:1:fwd': 'values differ: Tensor-likes are not close!',
               'float32:2:fwd': 'values differ: Tensor-likes are not close!',
               'float64:0:fwd': 'values differ: Tensor-likes are not close!',
               'float64:1:fwd': 'values differ: Tensor-likes are not close!',
               'float64:2:fwd': 'values differ: Tensor-likes are not close!',
               'int64:0:fwd': 'values differ: Tensor-likes are not equal!',
               'int64:1:fwd': 'values differ: Tensor-likes are not equal!',
               'int64:2:fwd': 'values differ: Tensor-likes are not equal!'},
 'half': {'bool:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'bool:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'bool:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'float32:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float32:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float32:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'int64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
          'int64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
          'int64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'"},
 'index_fill': {'float32:5:bwd': 'gradients differ: Scalars are not close!',
                'float64:5:bwd': 'gradients differ: Scalars are not close!'},
 'int': {'bool:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                       "'memory_format'",
         'bool:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                       "'memory_format'",
         'bool:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                       "'memory_format'",
         'float32:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'",
         'float32:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'",
         'float32:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'",
         'float64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'",
         'float64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'",
         'float64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'",
         'int64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
         'int64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
         'int64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'"},
 'kthvalue': {'int64:0:fwd': 'values differ: Tensor-likes are not equal!',
              'int64:1:fwd': 'values differ: Tensor-likes are not equal!',
              'int64:2:fwd': 'values differ: Tensor-likes are not equal!',
              'int64:3:fwd': 'values differ: Tensor-likes are not equal!',
              'int64:4:fwd': 'values differ: Tensor-likes are not equal!'},
 'linalg.eigh': {'float32:4:fwd': 'values differ: Tensor-likes are not close!',
                 'float64:0:fwd': 'values differ: Tensor-likes are not close!',
                 'float64:4:fwd': 'values differ: Tensor-likes are not close!',
                 'float64:6:fwd': 'values differ: Tensor-likes are not close!'},
 'linalg.householder_product': {'float32:2:bwd': 'float32 rounding: ill-conditioned sample matrices; the triangular '
                                                 'solves run in float64 and round (float64 matches) (gradients '
                                                 'differ: Tensor-likes are not close!)',
                                'float32:6:bwd': 'float32 rounding: ill-conditioned sample matrices; the triangular '
                                                 'solves run in float64 and round (float64 matches) (gradients '
                                                 'differ: Tensor-likes are not close!)',
                                'float32:7:bwd': 'float32 rounding: ill-conditioned sample matrices; the triangular '
                                                 'solves run in float64 and round (float64 matches) (gradients '
                                                 'differ: Tensor-likes are not close!)'},
 'linalg.lstsq': {'float32:11:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's through its "
                                    'own solve); rounding differs (gradients differ: Tensor-likes are not close!)',
                  'float32:14:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's through its "
                                    'own solve); rounding differs (gradients differ: Tensor-likes are not close!)',
                  'float32:20:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's through its "
                                    'own solve); rounding differs (gradients differ: Tensor-likes are not close!)',
                  'float32:23:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's through its "
                                    'own solve); rounding differs (gradients differ: Tensor-likes are not close!)',
                  'float32:26:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's through its "
                                    'own solve); rounding differs (gradients differ: Tensor-likes are not close!)',
                  'float32:32:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's through its "
                                    'own solve); rounding differs (gradients differ: Tensor-likes are not close!)',
                  'float32:35:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's through its "
                                    'own solve); rounding differs (gradients differ: Tensor-likes are not close!)',
                  'float32:8:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's through its own "
                                   'solve); rounding differs (gradients differ: Tensor-likes are not close!)'},
 'linalg.lstsq.grad_oriented': {'float32:11:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's "
                                                  'through its own solve); rounding differs (gradients differ: '
                                                  'Tensor-likes are not close!)',
                                'float32:14:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's "
                                                  'through its own solve); rounding differs (gradients differ: '
                                                  'Tensor-likes are not close!)',
                                'float32:20:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's "
                                                  'through its own solve); rounding differs (gradients differ: '
                                                  'Tensor-likes are not close!)',
                                'float32:23:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's "
                                                  'through its own solve); rounding differs (gradients differ: '
                                                  'Tensor-likes are not close!)',
                                'float32:26:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's "
                                                  'through its own solve); rounding differs (gradients differ: '
                                                  'Tensor-likes are not close!)',
                                'float32:32:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's "
                                                  'through its own solve); rounding differs (gradients differ: '
                                                  'Tensor-likes are not close!)',
                                'float32:35:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's "
                                                  'through its own solve); rounding differs (gradients differ: '
                                                  'Tensor-likes are not close!)',
                                'float32:8:bwd': "float32: the gradient goes through the pseudo-inverse (PyTorch's "
                                                 'through its own solve); rounding differs (gradients differ: '
                                                 'Tensor-likes are not close!)'},
 'linalg.multi_dot': {'float32:6:bwd': 'float32 rounding: ill-conditioned sample matrices; the triangular solves run '
                                       'in float64 and round (float64 matches) (gradients differ: Tensor-likes are '
                                       'not close!)'},
 'linalg.norm.subgradients_at_zero': {'float32:10:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float32:14:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float32:19:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float32:20:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float32:21:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float32:22:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float32:2:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float32:7:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float32:8:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float32:9:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float64:10:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float64:14:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float64:19:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float64:20:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float64:21:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float64:22:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float64:2:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float64:7:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float64:8:bwd': 'gradients differ: Tensor-likes are not close!',
                                      'float64:9:bwd': 'gradients differ: Tensor-likes are not close!'},
 'linalg.pinv.hermitian': {'float32:0:fwd': 'values differ: Tensor-likes are not close!',
                           'float32:4:fwd': 'values differ: Tensor-likes are not close!',
                           'float32:6:fwd': 'values differ: Tensor-likes are not close!',
                           'float64:0:fwd': 'values differ: Tensor-likes are not close!',
                           'float64:4:fwd': 'values differ: Tensor-likes are not close!',
                           'float64:6:fwd': 'values differ: Tensor-likes are not close!'},
 'linalg.svd': {'float32:184:fwd': 'values differ: Tensor-likes are not close!',
                'float32:185:fwd': 'values differ: Tensor-likes are not close!',
                'float32:186:fwd': 'values differ: Tensor-likes are not close!',
                'float32:187:fwd': 'values differ: Tensor-likes are not close!',
                'float32:188:fwd': 'values differ: Tensor-likes are not close!',
                'float32:189:fwd': 'values differ: Tensor-likes are not close!',
                'float32:190:fwd': 'values differ: Tensor-likes are not close!',
                'float32:191:fwd': 'values differ: Tensor-likes are not close!',
                'float32:208:fwd': 'values differ: Tensor-likes are not close!',
                'float32:209:fwd': 'values differ: Tensor-likes are not close!',
                'float32:210:fwd': 'values differ: Tensor-likes are not close!',
                'float32:211:fwd': 'values differ: Tensor-likes are not close!',
                'float32:212:fwd': 'values differ: Tensor-likes are not close!',
                'float32:213:fwd': 'values differ: Tensor-likes are not close!',
                'float32:214:fwd': 'values differ: Tensor-likes are not close!',
                'float32:215:fwd': 'values differ: Tensor-likes are not close!',
                'float32:40:fwd': 'values differ: Tensor-likes are not close!',
                'float32:41:fwd': 'values differ: Tensor-likes are not close!',
                'float32:42:fwd': 'values differ: Tensor-likes are not close!',
                'float32:43:fwd': 'values differ: Tensor-likes are not close!',
                'float32:44:fwd': 'values differ: Tensor-likes are not close!',
                'float32:45:fwd': 'values differ: Tensor-likes are not close!',
                'float32:46:fwd': 'values differ: Tensor-likes are not close!',
                'float32:47:fwd': 'values differ: Tensor-likes are not close!',
                'float32:66:bwd': 'gradients differ: Tensor-likes are not close!',
                'float32:70:bwd': 'gradients differ: Tensor-likes are not close!',
                'float64:184:fwd': 'values differ: Tensor-likes are not close!',
                'float64:185:fwd': 'values differ: Tensor-likes are not close!',
                'float64:186:fwd': 'values differ: Tensor-likes are not close!',
                'float64:187:fwd': 'values differ: Tensor-likes are not close!',
                'float64:188:fwd': 'values differ: Tensor-likes are not close!',
                'float64:189:fwd': 'values differ: Tensor-likes are not close!',
                'float64:190:fwd': 'values differ: Tensor-likes are not close!',
                'float64:191:fwd': 'values differ: Tensor-likes are not close!',
                'float64:40:fwd': 'values differ: Tensor-likes are not close!',
                'float64:41:fwd': 'values differ: Tensor-likes are not close!',
                'float64:42:fwd': 'values differ: Tensor-likes are not close!',
                'float64:43:fwd': 'values differ: Tensor-likes are not close!',
                'float64:44:fwd': 'values differ: Tensor-likes are not close!',
                'float64:45:fwd': 'values differ: Tensor-likes are not close!',
                'float64:46:fwd': 'values differ: Tensor-likes are not close!',
                'float64:47:fwd': 'values differ: Tensor-likes are not close!'},
 'linspace': {'int64:32:fwd': 'values differ: Tensor-likes are not equal!',
              'int64:35:fwd': 'values differ: Tensor-likes are not equal!',
              'int64:38:fwd': 'values differ: Tensor-likes are not equal!',
              'int64:44:fwd': 'values differ: Tensor-likes are not equal!'},
 'linspace.tensor_overload': {'int64:105:fwd': 'values differ: Tensor-likes are not equal!',
                              'int64:106:fwd': 'values differ: Tensor-likes are not equal!',
                              'int64:107:fwd': 'values differ: Tensor-likes are not equal!',
                              'int64:114:fwd': 'values differ: Tensor-likes are not equal!',
                              'int64:115:fwd': 'values differ: Tensor-likes are not equal!',
                              'int64:116:fwd': 'values differ: Tensor-likes are not equal!',
                              'int64:132:fwd': 'values differ: Tensor-likes are not equal!',
                              'int64:133:fwd': 'values differ: Tensor-likes are not equal!',
                              'int64:134:fwd': 'values differ: Tensor-likes are not equal!',
                              'int64:96:fwd': 'values differ: Tensor-likes are not equal!',
                              'int64:97:fwd': 'values differ: Tensor-likes are not equal!',
                              'int64:98:fwd': 'values differ: Tensor-likes are not equal!'},
 'log_softmax.with_dtype': {'float32:0:bwd': "gradients differ: The values for attribute 'dtype' do not match: "
                                             'torch.float64 != torch.float32.',
                            'float32:1:bwd': "gradients differ: The values for attribute 'dtype' do not match: "
                                             'torch.float64 != torch.float32.',
                            'float32:2:bwd': "gradients differ: The values for attribute 'dtype' do not match: "
                                             'torch.float64 != torch.float32.',
                            'float32:3:bwd': "gradients differ: The values for attribute 'dtype' do not match: "
                                             'torch.float64 != torch.float32.',
                            'float32:4:bwd': "gradients differ: The values for attribute 'dtype' do not match: "
                                             'torch.float64 != torch.float32.',
                            'float32:5:bwd': "gradients differ: The values for attribute 'dtype' do not match: "
                                             'torch.float64 != torch.float32.',
                            'float32:6:bwd': "gradients differ: The values for attribute 'dtype' do not match: "
                                             'torch.float64 != torch.float32.'},
 'logcumsumexp': {'float32:0:bwd': 'gradients differ: Tensor-likes are not close!',
                  'float32:1:bwd': 'gradients differ: Tensor-likes are not close!'},
 'long': {'bool:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'bool:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'bool:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                        "'memory_format'",
          'float32:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float32:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float32:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'float64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                           "'memory_format'",
          'int64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
          'int64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
          'int64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'"},
 'matrix_exp': {'float32:0:bwd': 'float32: tinytorch computes exp in float64 and rounds (closer to the float64 '
                                 "result than PyTorch's float32 kernel) (gradients differ: Tensor-likes are not "
                                 'close!)',
                'float32:1:fwd': 'float32: tinytorch computes exp in float64 and rounds (closer to the float64 '
                                 "result than PyTorch's float32 kernel) (values differ: Tensor-likes are not "
                                 'close!)'},
 'max.reduction_with_dim': {'float32:2:bwd': 'backward raises IndexError: too many indices for array: array is '
                                             '0-dimensional, but 1 were indexed',
                            'float64:2:bwd': 'backward raises IndexError: too many indices for array: array is '
                                             '0-dimensional, but 1 were indexed'},
 'min.reduction_with_dim': {'float32:2:bwd': 'backward raises IndexError: too many indices for array: array is '
                                             '0-dimensional, but 1 were indexed',
                            'float64:2:bwd': 'backward raises IndexError: too many indices for array: array is '
                                             '0-dimensional, but 1 were indexed'},
 'mode': {'bool:6:fwd': 'values differ: Scalars are not equal!',
          'int64:6:fwd': 'values differ: Scalars are not equal!'},
 'multinomial': {'float32:1:fwd': 'values differ: Tensor-likes are not equal!',
                 'float32:2:fwd': 'values differ: Tensor-likes are not equal!',
                 'float32:5:fwd': 'values differ: Tensor-likes are not equal!',
                 'float32:6:fwd': 'values differ: Tensor-likes are not equal!',
                 'float64:0:fwd': 'values differ: Tensor-likes are not equal!',
                 'float64:1:fwd': 'values differ: Tensor-likes are not equal!',
                 'float64:2:fwd': 'values differ: Tensor-likes are not equal!',
                 'float64:3:fwd': 'values differ: Tensor-likes are not equal!',
                 'float64:4:fwd': 'values differ: Tensor-likes are not equal!',
                 'float64:5:fwd': 'values differ: Tensor-likes are not equal!',
                 'float64:6:fwd': 'values differ: Tensor-likes are not equal!'},
 'nn.functional.avg_pool1d': {'int64:0:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'",
                              'int64:1:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'",
                              'int64:2:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'",
                              'int64:3:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'",
                              'int64:4:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'",
                              'int64:5:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'",
                              'int64:6:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'",
                              'int64:7:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'",
                              'int64:8:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'"},
 'nn.functional.avg_pool2d': {'int64:0:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'",
                              'int64:1:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'",
                              'int64:2:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'",
                              'int64:3:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'",
                              'int64:4:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'",
                              'int64:5:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'",
                              'int64:6:fwd': "raises UFuncTypeError: Cannot cast ufunc 'divide' output from "
                                             "dtype('float64') to dtype('int64') with casting rule 'same_kind'"},
 'nn.functional.batch_norm': {'float32:3:fwd': 'raises ValueError: Expected more than 1 value per channel when '
                                               'training, got input size tinytorch.Size([0])',
                              'float32:4:fwd': "values differ: The values for attribute 'shape' do not match: "
                                               'torch.Size([1, 0]) != torch.Size([0]).',
                              'float64:3:fwd': 'raises ValueError: Expected more than 1 value per channel when '
                                               'training, got input size tinytorch.Size([0])',
                              'float64:4:fwd': "values differ: The values for attribute 'shape' do not match: "
                                               'torch.Size([1, 0]) != torch.Size([0]).'},
 'nn.functional.conv_transpose2d': {'float32:2:bwd': "gradients differ: The values for attribute 'shape' do not "
                                                     'match: torch.Size([2, 2, 4, 5]) != torch.Size([2, 2, 4, 4]).',
                                    'float32:3:bwd': "backward raises RuntimeError: shape '[2, 4, 4]' is invalid for "
                                                     'input of size 40',
                                    'float64:2:bwd': "gradients differ: The values for attribute 'shape' do not "
                                                     'match: torch.Size([2, 2, 4, 5]) != torch.Size([2, 2, 4, 4]).',
                                    'float64:3:bwd': "backward raises RuntimeError: shape '[2, 4, 4]' is invalid for "
                                                     'input of size 40'},
 'nn.functional.dropout': {'float32:2:fwd': 'values differ: Tensor-likes are not close!',
                           'float32:8:fwd': 'values differ: Tensor-likes are not close!',
                           'float64:2:fwd': 'values differ: Tensor-likes are not close!',
                           'float64:8:fwd': 'values differ: Tensor-likes are not close!'},
 'nn.functional.dropout2d': {'float32:12:fwd': 'values differ: Tensor-likes are not close!',
                             'float32:2:fwd': 'values differ: Tensor-likes are not close!',
                             'float32:8:fwd': 'values differ: Tensor-likes are not close!',
                             'float64:12:fwd': 'values differ: Tensor-likes are not close!',
                             'float64:2:fwd': 'values differ: Tensor-likes are not close!',
                             'float64:8:fwd': 'values differ: Tensor-likes are not close!'},
 'nn.functional.dropout3d': {'float32:12:fwd': 'values differ: Tensor-likes are not close!',
                             'float32:2:fwd': 'values differ: Tensor-likes are not close!',
                             'float32:8:fwd': 'values differ: Tensor-likes are not close!',
                             'float64:12:fwd': 'values differ: Tensor-likes are not close!',
                             'float64:2:fwd': 'values differ: Tensor-likes are not close!',
                             'float64:8:fwd': 'values differ: Tensor-likes are not close!'},
 'nn.functional.interpolate.area': {'float32:0:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float32:10:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float32:11:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float32:12:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float32:13:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float32:14:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float32:15:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float32:16:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float32:17:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float32:18:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float32:19:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float32:1:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float32:20:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float32:21:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float32:2:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float32:3:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float32:4:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float32:5:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float32:6:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float32:7:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float32:8:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float32:9:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float64:0:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float64:10:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float64:11:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float64:12:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float64:13:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float64:14:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float64:15:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float64:16:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float64:17:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float64:18:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float64:19:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float64:1:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float64:20:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float64:21:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                      "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                      'bilinear and trilinear)',
                                    'float64:2:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float64:3:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float64:4:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float64:5:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float64:6:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float64:7:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float64:8:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)',
                                    'float64:9:fwd': "raises NotImplementedError: tinytorch's interpolate does not "
                                                     "implement mode 'area' (it has nearest, nearest-exact, linear, "
                                                     'bilinear and trilinear)'},
 'nn.functional.interpolate.bicubic': {'float32:0:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float32:10:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float32:11:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float32:12:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float32:13:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float32:14:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float32:15:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float32:16:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float32:17:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float32:18:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float32:19:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float32:1:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float32:20:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float32:21:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float32:22:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float32:23:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float32:2:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float32:3:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float32:4:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float32:5:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float32:6:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float32:7:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float32:8:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float32:9:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float64:0:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float64:10:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float64:11:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float64:12:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float64:13:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float64:14:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float64:15:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float64:16:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float64:17:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float64:18:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float64:19:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float64:1:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float64:20:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float64:21:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float64:22:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float64:23:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                         "not implement mode 'bicubic' (it has nearest, "
                                                         'nearest-exact, linear, bilinear and trilinear',
                                       'float64:2:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float64:3:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float64:4:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float64:5:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float64:6:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float64:7:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float64:8:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear',
                                       'float64:9:fwd': "raises NotImplementedError: tinytorch's interpolate does "
                                                        "not implement mode 'bicubic' (it has nearest, "
                                                        'nearest-exact, linear, bilinear and trilinear'},
 'nn.functional.normalize': {'float32:4:fwd': 'raises ZeroDivisionError: float division by zero',
                             'float32:5:fwd': 'raises AxisError: axis 0 is out of bounds for array of dimension 0',
                             'float64:4:fwd': 'raises ZeroDivisionError: float division by zero',
                             'float64:5:fwd': 'raises AxisError: axis 0 is out of bounds for array of dimension 0'},
 'nn.functional.prelu': {'float32:7:fwd': "values differ: The values for attribute 'shape' do not match: "
                                          'torch.Size([1]) != torch.Size([]).',
                         'float64:7:fwd': "values differ: The values for attribute 'shape' do not match: "
                                          'torch.Size([1]) != torch.Size([]).'},
 'nn.functional.rrelu': {'float32:0:fwd': 'values differ: Tensor-likes are not close!',
                         'float32:2:fwd': 'values differ: Scalars are not close!',
                         'float64:0:fwd': 'values differ: Tensor-likes are not close!',
                         'float64:2:fwd': 'values differ: Scalars are not close!'},
 'nn.functional.softmin.with_dtype': {'float32:0:bwd': "gradients differ: The values for attribute 'dtype' do not "
                                                       'match: torch.float64 != torch.float32.',
                                      'float32:1:bwd': "gradients differ: The values for attribute 'dtype' do not "
                                                       'match: torch.float64 != torch.float32.',
                                      'float32:2:bwd': "gradients differ: The values for attribute 'dtype' do not "
                                                       'match: torch.float64 != torch.float32.',
                                      'float32:3:bwd': "gradients differ: The values for attribute 'dtype' do not "
                                                       'match: torch.float64 != torch.float32.',
                                      'float32:4:bwd': "gradients differ: The values for attribute 'dtype' do not "
                                                       'match: torch.float64 != torch.float32.',
                                      'float32:5:bwd': "gradients differ: The values for attribute 'dtype' do not "
                                                       'match: torch.float64 != torch.float32.',
                                      'float32:6:bwd': "gradients differ: The values for attribute 'dtype' do not "
                                                       'match: torch.float64 != torch.float32.'},
 'nn.functional.unfold': {'bool:0:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:100:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:101:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:102:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:103:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:104:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:105:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:106:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:107:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:108:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:109:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:10:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:110:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:111:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:112:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:113:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:114:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:115:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:116:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:117:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:118:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:119:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:11:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:120:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:121:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:122:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:123:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:124:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:125:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:126:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:127:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:128:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:129:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:12:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:130:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:131:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:132:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:133:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:134:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:135:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:136:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:137:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:138:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:139:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:13:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:140:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:141:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:142:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:143:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:144:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:145:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:146:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:147:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:148:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:149:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:14:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:150:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:151:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:152:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:153:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:154:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:155:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:156:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:157:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:158:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:159:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:15:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:160:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:161:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:162:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:16:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:17:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:18:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:19:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:1:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:20:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:21:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:22:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:23:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:24:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:25:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:26:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:27:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:28:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:29:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:2:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:30:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:31:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:32:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:33:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:34:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:35:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:36:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:37:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:38:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:39:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:3:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:40:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:41:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:42:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:43:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:44:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:45:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:46:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:47:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:48:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:49:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:4:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:50:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:51:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:52:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:53:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:54:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:55:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:56:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:57:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:58:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:59:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:5:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:60:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:61:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:62:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:63:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:64:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:65:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:66:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:67:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:68:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:69:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:6:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:70:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:71:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:72:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:73:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:74:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:75:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:76:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:77:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:78:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:79:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:7:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:80:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:81:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:82:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:83:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:84:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:85:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:86:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:87:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:88:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:89:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:8:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:90:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:91:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:92:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:93:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:94:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:95:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:96:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:97:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:98:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:99:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\'',
                          'bool:9:fwd': 'raises NotImplementedError: "im2col_out_cpu" not implemented for \'Bool\''},
 'normal': {'float32:0:fwd': 'values differ: Scalars are not close!',
            'float32:1:fwd': 'values differ: Tensor-likes are not close!',
            'float32:2:fwd': 'values differ: Tensor-likes are not close!',
            'float32:3:fwd': 'values differ: Tensor-likes are not close!',
            'float32:4:fwd': 'values differ: Tensor-likes are not close!',
            'float64:0:fwd': 'values differ: Scalars are not close!',
            'float64:1:fwd': 'values differ: Tensor-likes are not close!',
            'float64:2:fwd': 'values differ: Tensor-likes are not close!',
            'float64:3:fwd': 'values differ: Tensor-likes are not close!',
            'float64:4:fwd': 'values differ: Tensor-likes are not close!'},
 'normal.in_place': {'float32:0:fwd': 'values differ: Tensor-likes are not close!',
                     'float32:1:fwd': 'values differ: Tensor-likes are not close!',
                     'float64:0:fwd': 'values differ: Tensor-likes are not close!',
                     'float64:1:fwd': 'values differ: Tensor-likes are not close!'},
 'normal.number_mean': {'float32:0:fwd': 'values differ: Tensor-likes are not close!',
                        'float32:1:fwd': "raises TypeError: normal() got an unexpected keyword argument 'layout'",
                        'float32:2:fwd': 'values differ: Tensor-likes are not close!',
                        'float64:0:fwd': 'values differ: Tensor-likes are not close!',
                        'float64:1:fwd': "raises TypeError: normal() got an unexpected keyword argument 'layout'",
                        'float64:2:fwd': 'values differ: Tensor-likes are not close!'},
 'polygamma.polygamma_n_0': {'float32:0:fwd': 'values differ: Tensor-likes are not close!'},
 'polygamma.polygamma_n_1': {'float32:0:fwd': 'values differ: Tensor-likes are not close!'},
 'polygamma.polygamma_n_2': {'float32:0:fwd': 'values differ: Tensor-likes are not close!'},
 'polygamma.polygamma_n_3': {'float32:0:fwd': 'values differ: Tensor-likes are not close!'},
 'polygamma.polygamma_n_4': {'float32:0:fwd': 'values differ: Tensor-likes are not close!'},
 'pow': {'float32:4:bwd': 'gradients differ: Tensor-likes are not close!'},
 'prod': {'float32:10:bwd': 'backward raises RuntimeError: start (0) + length (1) exceeds dimension size (0).',
          'float32:11:bwd': 'backward raises RuntimeError: start (0) + length (1) exceeds dimension size (0).',
          'float32:25:bwd': 'backward raises RuntimeError: start (0) + length (1) exceeds dimension size (0).',
          'float32:33:bwd': 'backward raises RuntimeError: start (0) + length (1) exceeds dimension size (0).',
          'float32:34:bwd': 'backward raises RuntimeError: start (0) + length (1) exceeds dimension size (0).',
          'float64:10:bwd': 'backward raises RuntimeError: start (0) + length (1) exceeds dimension size (0).',
          'float64:11:bwd': 'backward raises RuntimeError: start (0) + length (1) exceeds dimension size (0).',
          'float64:25:bwd': 'backward raises RuntimeError: start (0) + length (1) exceeds dimension size (0).',
          'float64:33:bwd': 'backward raises RuntimeError: start (0) + length (1) exceeds dimension size (0).',
          'float64:34:bwd': 'backward raises RuntimeError: start (0) + length (1) exceeds dimension size (0).'},
 'rand_like': {'float32:0:fwd': 'values differ: Scalars are not close!',
               'float32:1:fwd': 'values differ: Tensor-likes are not close!',
               'float32:3:fwd': 'values differ: Tensor-likes are not close!',
               'float32:4:fwd': 'values differ: Tensor-likes are not close!',
               'float32:5:fwd': 'values differ: Tensor-likes are not close!',
               'float32:6:fwd': 'values differ: Tensor-likes are not close!',
               'float64:0:fwd': 'values differ: Scalars are not close!',
               'float64:1:fwd': 'values differ: Tensor-likes are not close!',
               'float64:3:fwd': 'values differ: Tensor-likes are not close!',
               'float64:4:fwd': 'values differ: Tensor-likes are not close!',
               'float64:5:fwd': 'values differ: Tensor-likes are not close!',
               'float64:6:fwd': 'values differ: Tensor-likes are not close!'},
 'randint': {'float32:0:fwd': 'values differ: Scalars are not equal!',
             'float32:10:fwd': 'values differ: Tensor-likes are not equal!',
             'float32:11:fwd': 'values differ: Tensor-likes are not equal!',
             'float32:12:fwd': 'values differ: Tensor-likes are not close!',
             'float32:13:fwd': 'values differ: Tensor-likes are not close!',
             'float32:1:fwd': 'values differ: Scalars are not equal!',
             'float32:2:fwd': 'values differ: Tensor-likes are not equal!',
             'float32:3:fwd': 'values differ: Tensor-likes are not equal!',
             'float32:6:fwd': 'values differ: Tensor-likes are not close!',
             'float32:7:fwd': 'values differ: Tensor-likes are not close!',
             'float32:8:fwd': 'values differ: Tensor-likes are not close!',
             'float32:9:fwd': 'values differ: Tensor-likes are not close!',
             'float64:0:fwd': 'values differ: Scalars are not equal!',
             'float64:10:fwd': 'values differ: Tensor-likes are not equal!',
             'float64:11:fwd': 'values differ: Tensor-likes are not equal!',
             'float64:12:fwd': 'values differ: Tensor-likes are not close!',
             'float64:13:fwd': 'values differ: Tensor-likes are not close!',
             'float64:1:fwd': 'values differ: Scalars are not equal!',
             'float64:2:fwd': 'values differ: Tensor-likes are not equal!',
             'float64:3:fwd': 'values differ: Tensor-likes are not equal!',
             'float64:6:fwd': 'values differ: Tensor-likes are not close!',
             'float64:7:fwd': 'values differ: Tensor-likes are not close!',
             'float64:8:fwd': 'values differ: Tensor-likes are not close!',
             'float64:9:fwd': 'values differ: Tensor-likes are not close!',
             'int64:0:fwd': 'values differ: Scalars are not equal!',
             'int64:10:fwd': 'values differ: Tensor-likes are not equal!',
             'int64:11:fwd': 'values differ: Tensor-likes are not equal!',
             'int64:12:fwd': 'values differ: Tensor-likes are not close!',
             'int64:13:fwd': 'values differ: Tensor-likes are not close!',
             'int64:1:fwd': 'values differ: Scalars are not equal!',
             'int64:2:fwd': 'values differ: Tensor-likes are not equal!',
             'int64:3:fwd': 'values differ: Tensor-likes are not equal!',
             'int64:6:fwd': 'values differ: Tensor-likes are not equal!',
             'int64:7:fwd': 'values differ: Tensor-likes are not equal!',
             'int64:8:fwd': 'values differ: Tensor-likes are not close!',
             'int64:9:fwd': 'values differ: Tensor-likes are not close!'},
 'randint_like': {'float32:0:fwd': 'values differ: Scalars are not close!',
                  'float32:10:fwd': 'values differ: Tensor-likes are not close!',
                  'float32:11:fwd': 'values differ: Tensor-likes are not close!',
                  'float32:12:fwd': 'values differ: Tensor-likes are not close!',
                  'float32:13:fwd': 'values differ: Tensor-likes are not close!',
                  'float32:1:fwd': 'values differ: Scalars are not close!',
                  'float32:2:fwd': 'values differ: Tensor-likes are not close!',
                  'float32:3:fwd': 'values differ: Tensor-likes are not close!',
                  'float32:6:fwd': 'values differ: Tensor-likes are not close!',
                  'float32:7:fwd': 'values differ: Tensor-likes are not close!',
                  'float32:8:fwd': 'values differ: Tensor-likes are not close!',
                  'float32:9:fwd': 'values differ: Tensor-likes are not close!',
                  'float64:0:fwd': 'values differ: Scalars are not close!',
                  'float64:10:fwd': 'values differ: Tensor-likes are not close!',
                  'float64:11:fwd': 'values differ: Tensor-likes are not close!',
                  'float64:12:fwd': 'values differ: Tensor-likes are not close!',
                  'float64:13:fwd': 'values differ: Tensor-likes are not close!',
                  'float64:1:fwd': 'values differ: Scalars are not close!',
                  'float64:2:fwd': 'values differ: Tensor-likes are not close!',
                  'float64:3:fwd': 'values differ: Tensor-likes are not close!',
                  'float64:6:fwd': 'values differ: Tensor-likes are not close!',
                  'float64:7:fwd': 'values differ: Tensor-likes are not close!',
                  'float64:8:fwd': 'values differ: Tensor-likes are not close!',
                  'float64:9:fwd': 'values differ: Tensor-likes are not close!',
                  'int64:0:fwd': 'values differ: Scalars are not equal!',
                  'int64:10:fwd': 'values differ: Tensor-likes are not equal!',
                  'int64:11:fwd': 'values differ: Tensor-likes are not equal!',
                  'int64:12:fwd': 'values differ: Tensor-likes are not close!',
                  'int64:13:fwd': 'values differ: Tensor-likes are not close!',
                  'int64:1:fwd': 'values differ: Scalars are not equal!',
                  'int64:2:fwd': 'values differ: Tensor-likes are not equal!',
                  'int64:3:fwd': 'values differ: Tensor-likes are not equal!',
                  'int64:6:fwd': 'values differ: Tensor-likes are not equal!',
                  'int64:7:fwd': 'values differ: Tensor-likes are not equal!',
                  'int64:8:fwd': 'values differ: Tensor-likes are not close!',
                  'int64:9:fwd': 'values differ: Tensor-likes are not close!'},
 'randn': {'float32:0:fwd': 'values differ: Tensor-likes are not close!',
           'float32:1:fwd': 'values differ: Tensor-likes are not close!',
           'float64:0:fwd': 'values differ: Tensor-likes are not close!',
           'float64:1:fwd': 'values differ: Tensor-likes are not close!'},
 'randn_like': {'float32:0:fwd': 'values differ: Scalars are not close!',
                'float32:1:fwd': 'values differ: Tensor-likes are not close!',
                'float32:3:fwd': 'values differ: Tensor-likes are not close!',
                'float32:4:fwd': 'values differ: Tensor-likes are not close!',
                'float32:5:fwd': 'values differ: Tensor-likes are not close!',
                'float32:6:fwd': 'values differ: Tensor-likes are not close!',
                'float64:0:fwd': 'values differ: Scalars are not close!',
                'float64:1:fwd': 'values differ: Tensor-likes are not close!',
                'float64:3:fwd': 'values differ: Tensor-likes are not close!',
                'float64:4:fwd': 'values differ: Tensor-likes are not close!',
                'float64:5:fwd': 'values differ: Tensor-likes are not close!',
                'float64:6:fwd': 'values differ: Tensor-likes are not close!'},
 'scatter': {'bool:11:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'bool:13:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'bool:14:fwd': 'raises RuntimeError: Index tensor must have the same number of dimensions as self '
                            'tensor',
             'bool:15:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'bool:16:fwd': 'raises RuntimeError: Index tensor must have the same number of dimensions as self '
                            'tensor',
             'bool:17:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'bool:1:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'bool:2:fwd': 'raises RuntimeError: scatter(): Expected dtype int64 for index',
             'bool:3:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'bool:5:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'bool:7:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'bool:9:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'float32:1:fwd': 'raises RuntimeError: scatter(): Expected dtype int64 for index',
             'float32:7:fwd': 'raises RuntimeError: Index tensor must have the same number of dimensions as self '
                              'tensor',
             'float32:8:fwd': 'raises RuntimeError: Index tensor must have the same number of dimensions as self '
                              'tensor',
             'float64:1:fwd': 'raises RuntimeError: scatter(): Expected dtype int64 for index',
             'float64:7:fwd': 'raises RuntimeError: Index tensor must have the same number of dimensions as self '
                              'tensor',
             'float64:8:fwd': 'raises RuntimeError: Index tensor must have the same number of dimensions as self '
                              'tensor',
             'int64:11:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'int64:13:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'int64:14:fwd': 'raises RuntimeError: Index tensor must have the same number of dimensions as self '
                             'tensor',
             'int64:15:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'int64:16:fwd': 'raises RuntimeError: Index tensor must have the same number of dimensions as self '
                             'tensor',
             'int64:17:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'int64:1:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'int64:2:fwd': 'raises RuntimeError: scatter(): Expected dtype int64 for index',
             'int64:3:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'int64:5:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'int64:7:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'",
             'int64:9:fwd': "raises TypeError: scatter() got an unexpected keyword argument 'reduce'"},
 'short': {'bool:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
           'bool:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
           'bool:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                         "'memory_format'",
           'float32:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                            "'memory_format'",
           'float32:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                            "'memory_format'",
           'float32:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                            "'memory_format'",
           'float64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                            "'memory_format'",
           'float64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                            "'memory_format'",
           'float64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                            "'memory_format'",
           'int64:1:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'",
           'int64:3:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'",
           'int64:4:fwd': 'raises TypeError: _bind.<locals>.<lambda>() got an unexpected keyword argument '
                          "'memory_format'"},
 'softmax.with_dtype': {'float32:0:bwd': "gradients differ: The values for attribute 'dtype' do not match: "
                                         'torch.float64 != torch.float32.',
                        'float32:1:bwd': "gradients differ: The values for attribute 'dtype' do not match: "
                                         'torch.float64 != torch.float32.',
                        'float32:2:bwd': "gradients differ: The values for attribute 'dtype' do not match: "
                                         'torch.float64 != torch.float32.',
                        'float32:3:bwd': "gradients differ: The values for attribute 'dtype' do not match: "
                                         'torch.float64 != torch.float32.',
                        'float32:4:bwd': "gradients differ: The values for attribute 'dtype' do not match: "
                                         'torch.float64 != torch.float32.',
                        'float32:5:bwd': "gradients differ: The values for attribute 'dtype' do not match: "
                                         'torch.float64 != torch.float32.',
                        'float32:6:bwd': "gradients differ: The values for attribute 'dtype' do not match: "
                                         'torch.float64 != torch.float32.'},
 'sort': {'bool:0:fwd': 'values differ: Tensor-likes are not equal!'},
 'special.bessel_j0': {'float64:0:fwd': "PyTorch's float64 Bessel kernels carry ~4e-7 absolute error beyond |x| = 5; "
                                        "SciPy's (kept) agree with mpmath (values differ: Tensor-likes are not "
                                        'close!)'},
 'special.bessel_y1': {'float64:0:fwd': "PyTorch's float64 Bessel kernels carry ~9e-7 absolute error beyond |x| = 5; "
                                        "SciPy's (kept) agree with mpmath (values differ: Tensor-likes are not "
                                        'close!)'},
 'special.polygamma.special_polygamma_n_0': {'float32:0:fwd': 'values differ: Tensor-likes are not close!'},
 'tensordot': {'float32:2:fwd': 'raises RuntimeError: contracted dimensions need to match, but first has size 1 in '
                                'dim 0 and second has size 2 in dim 2',
               'float64:2:fwd': 'raises RuntimeError: contracted dimensions need to match, but first has size 1 in '
                                'dim 0 and second has size 2 in dim 2',
               'int64:2:fwd': 'raises RuntimeError: contracted dimensions need to match, but first has size 1 in dim '
                              '0 and second has size 2 in dim 2'},
 'to': {'bool:0:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:10:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:11:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:12:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:13:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:14:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:15:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:16:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:17:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:18:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:19:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:1:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:20:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:21:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:22:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:23:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:2:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:3:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:4:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:5:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:6:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:7:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:8:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'bool:9:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:0:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:10:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:11:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:12:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:13:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:14:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:15:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:16:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:17:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:18:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:19:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:1:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:20:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:21:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:22:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:23:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:2:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:3:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:4:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:5:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:6:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:7:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:8:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float32:9:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:0:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:10:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:11:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:12:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:13:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:14:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:15:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:16:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:17:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:18:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:19:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:1:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:20:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:21:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:22:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:23:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:2:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:3:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:4:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:5:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:6:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:7:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:8:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'float64:9:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:0:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:10:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:11:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:12:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:13:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:14:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:15:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:16:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:17:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:18:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:19:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:1:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:20:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:21:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:22:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:23:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:2:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:3:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:4:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:5:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:6:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:7:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:8:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)',
        'int64:9:fwd': 'raises TypeError: device() received an invalid combination of arguments - got (bool)'},
 'topk': {'int64:0:fwd': 'values differ: Tensor-likes are not equal!',
          'int64:1:fwd': 'values differ: Tensor-likes are not equal!',
          'int64:2:fwd': 'values differ: Tensor-likes are not equal!',
          'int64:3:fwd': 'values differ: Tensor-likes are not equal!',
          'int64:4:fwd': 'values differ: Tensor-likes are not equal!',
          'int64:5:fwd': 'values differ: Tensor-likes are not equal!',
          'int64:6:fwd': 'values differ: Tensor-likes are not equal!'},
 'triangular_solve': {'float32:6:bwd': 'float32 rounding: ill-conditioned sample matrices; the triangular solves run '
                                       'in float64 and round (float64 matches) (gradients differ: Tensor-likes are '
                                       'not close!)',
                      'float32:7:bwd': 'float32 rounding: ill-conditioned sample matrices; the triangular solves run '
                                       'in float64 and round (float64 matches) (gradients differ: Tensor-likes are '
                                       'not close!)'},
 'uniform': {'float32:0:fwd': 'values differ: Tensor-likes are not close!',
             'float32:1:fwd': 'values differ: Tensor-likes are not close!',
             'float32:2:fwd': 'values differ: Tensor-likes are not close!',
             'float64:0:fwd': 'values differ: Tensor-likes are not close!',
             'float64:1:fwd': 'values differ: Tensor-likes are not close!',
             'float64:2:fwd': 'values differ: Tensor-likes are not close!'},
 'unique_consecutive': {'bool:252:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'bool:253:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'bool:254:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'bool:255:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'bool:256:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'bool:257:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'bool:258:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'bool:259:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'bool:260:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'bool:261:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'bool:262:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'bool:263:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float32:252:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float32:253:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float32:254:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float32:255:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float32:256:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float32:257:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float32:258:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float32:259:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float32:260:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float32:261:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float32:262:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float32:263:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float64:252:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float64:253:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float64:254:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float64:255:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float64:256:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float64:257:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float64:258:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float64:259:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float64:260:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float64:261:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float64:262:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'float64:263:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'int64:252:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'int64:253:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'int64:254:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'int64:255:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'int64:256:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'int64:257:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'int64:258:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'int64:259:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'int64:260:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'int64:261:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'int64:262:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)',
                        'int64:263:fwd': 'raises ValueError: cannot reshape array of size 0 into shape (0,newaxis)'}}
