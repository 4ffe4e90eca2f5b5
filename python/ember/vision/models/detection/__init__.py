"""ember.vision.models.detection"""
