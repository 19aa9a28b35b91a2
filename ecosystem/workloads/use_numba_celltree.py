"""numba_celltree: point, box and face queries on a generated unstructured mesh."""

import numpy as np
from numba_celltree import CellTree2d, EdgeCellTree2d

# A 5 x 5 grid of unit squares, each split into two triangles.
xs, ys = np.meshgrid(np.arange(6.0), np.arange(6.0))
vertices = np.column_stack([xs.ravel(), ys.ravel()]) / 5.0 - 0.5
faces = []
for row in range(5):
    for col in range(5):
        a = row * 6 + col
        faces += [[a, a + 1, a + 7], [a, a + 7, a + 6]]
faces = np.array(faces, dtype=np.int64)
tree = CellTree2d(vertices, faces, -1)
points = np.array([[0.1, 0.1], [0.5, -0.2], [2.0, 2.0]])
tree.locate_points(points)
tree.locate_boxes(np.array([[-0.2, 0.2, -0.2, 0.2]]))
tree.intersect_faces(vertices * 0.9 + 0.05, faces, -1)
tree.compute_barycentric_weights(points[:2])
tree.intersect_edges(np.array([[[-1.0, -1.0], [1.0, 1.0]]]))
edge_coords = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
edge_tree = EdgeCellTree2d(edge_coords, np.array([[0, 1], [1, 2]]))
edge_tree.locate_points(np.array([[0.5, 0.0]]))
print("numba_celltree ok")
