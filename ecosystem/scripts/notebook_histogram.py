#!/usr/bin/env python
# coding: utf-8

# # Fast histograms with Numba
#
# Exported from a Jupyter notebook.

# In[1]:


import numpy as np
import numba as nb


# In[2]:


data = np.random.normal(size=50_000)
data[:5]


# In[3]:


@nb.njit
def histogram(values, bins, lo, hi):
    counts = np.zeros(bins, dtype=np.int64)
    width = (hi - lo) / bins
    for v in values:
        k = int((v - lo) / width)
        if 0 <= k < bins:
            counts[k] += 1
    return counts


# In[4]:


counts = histogram(data, 20, -4.0, 4.0)
counts


# In[5]:


print(counts.sum(), np.histogram(data, 20, (-4.0, 4.0))[0].sum())
